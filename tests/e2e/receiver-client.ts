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

let counter = 0;
/** A token unique to this test run and worker, to find a test's own deliveries. */
export function uniqueToken(prefix = "t") {
  counter += 1;
  return `${prefix}${process.pid}x${counter}x${Date.now().toString(36)}`;
}
