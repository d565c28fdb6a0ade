import type { ReceivedRequest } from "../support/webhook-receiver";
import { e2e } from "./e2e-env";

/** What the e2e webhook receiver got whose `name` contains the token. */
export async function deliveriesNamed(token: string): Promise<ReceivedRequest[]> {
  const response = await fetch(`${e2e.receiverURL}/__received`);
  const all = (await response.json()) as ReceivedRequest[];
  return all.filter((request) => {
    const json = request.json as { name?: unknown } | undefined;
    return typeof json?.name === "string" && json.name.includes(token);
  });
}

/**
 * What the e2e webhook receiver got whose body holds the text anywhere, in any
 * field: for "nothing was delivered" checks, which must see a wrong delivery
 * whatever field it carries the test's token in.
 */
export async function deliveriesWith(text: string): Promise<ReceivedRequest[]> {
  const response = await fetch(`${e2e.receiverURL}/__received`);
  const all = (await response.json()) as ReceivedRequest[];
  return all.filter((request) => request.body.includes(text));
}

let counter = 0;
/** A token unique to this test run and worker, to find a test's own deliveries. */
export function uniqueToken(prefix = "t") {
  counter += 1;
  return `${prefix}${process.pid}x${counter}x${Date.now().toString(36)}`;
}

let phoneCounter = 0;
/**
 * A phone number of this test's own, as typed and in E.164: the waitlist
 * takes three sign-ups a day per number, delivered or not, and the browser
 * tests share one server.
 */
export function uniquePhone() {
  phoneCounter += 1;
  // From the worker's index, which Playwright never gives two workers of one run (a worker started again after a
  // failure gets a new one), where a process id's last digits could be two workers' alike; 200 and up, as a real
  // exchange is.
  const exchange = String(200 + (Number(process.env.TEST_WORKER_INDEX ?? 0) % 800));
  const line = String(phoneCounter).padStart(4, "0");
  return { typed: `(555) ${exchange}-${line}`, e164: `+1555${exchange}${line}` };
}
