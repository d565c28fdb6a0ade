import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { leadsTable } from "@/tests/support/lead-rows";
import { postSignupWithoutScript, startNextServer } from "../support/next-server";
import type { Started } from "../support/processes";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { expect, test } from "./fixtures";

// Whose address the rate limits count and the consent records keep, per
// TRUSTED_PROXY_HOPS, on servers of their own. Every request here comes from
// 127.0.0.1; what a visitor can change is the X-Forwarded-For it sends.
test.describe.configure({ mode: "serial" });

let receiver: WebhookReceiver;
let dataDir: string;
const started: Started[] = [];

test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
  dataDir = await mkdtemp(path.join(tmpdir(), "sous-address-"));
});
test.afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
});
test.afterAll(async () => {
  await receiver.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function start(hops: string, command: "npm start" | "next start" = "npm start") {
  // One sign-up per address: a second from the same bucket is refused.
  const env = {
    WAITLIST_WEBHOOK_URL: `${receiver.url}/hooks/waitlist`,
    DATA_DIR: dataDir,
    TRUSTED_PROXY_HOPS: hops,
    RATE_LIMIT_FORM_POINTS: "1",
  };
  const server = await startNextServer(env, undefined, command);
  started.push(server);
  return server;
}

let counter = 0;
/** Signs up with the given X-Forwarded-For; resolves to whether it was taken and the address its consent record kept. */
async function signUp(server: Started, forwardedFor: string) {
  counter += 1;
  const phone = `+1555011${String(1000 + counter)}`;
  const { html } = await postSignupWithoutScript(
    server.url,
    { name: `Ada Address ${counter}`, phone, consent: "on" },
    { "x-forwarded-for": forwardedFor },
  );
  const table = leadsTable({ dataDir });
  try {
    const records = await table.db.selectFrom("consents").select("ip").where("phone", "=", phone).execute();
    return { taken: html.includes(waitlistMessages.success.title), ip: records.map((record) => record.ip) };
  } finally {
    await table.close();
  }
}

test("0 hops: the connection's address, whatever X-Forwarded-For a visitor sends; a second forged address is the same bucket", async () => {
  const server = await start("0");
  await expect
    .poll(() => server.output())
    .toContain('"event":"client_address","trustedProxyHops":0,"setBy":"setting","from":"socket"');
  expect(await signUp(server, "203.0.113.77")).toStrictEqual({ taken: true, ip: ["127.0.0.1"] });
  expect(await signUp(server, "203.0.113.78")).toStrictEqual({ taken: false, ip: [] });
});

test("TRUSTED_PROXY_HOPS unset under npm start, the quick start's set-up: a forged X-Forwarded-For is not recorded", async () => {
  const server = await start("");
  await expect
    .poll(() => server.output())
    .toContain('"level":"info","event":"client_address","trustedProxyHops":0,"setBy":"default","from":"socket"');
  expect(await signUp(server, "198.51.100.8")).toStrictEqual({ taken: true, ip: ["127.0.0.1"] });
  expect(await signUp(server, "198.51.100.9")).toStrictEqual({ taken: false, ip: [] });
});

test("1 hop, the same requests: the entry the proxy wrote is believed, so each forged address is its own bucket", async () => {
  const server = await start("1");
  await expect
    .poll(() => server.output())
    .toContain(
      '"level":"warn","event":"client_address","trustedProxyHops":1,"setBy":"setting","from":"x-forwarded-for"',
    );
  expect(await signUp(server, "203.0.113.77")).toStrictEqual({ taken: true, ip: ["203.0.113.77"] });
  expect(await signUp(server, "203.0.113.78")).toStrictEqual({ taken: true, ip: ["203.0.113.78"] });
  // What a visitor prepends is passed over: the right-most entry is the proxy's.
  expect(await signUp(server, "198.51.100.1, 203.0.113.79")).toStrictEqual({ taken: true, ip: ["203.0.113.79"] });
});

test("2 hops: the address the outer proxy saw, past the inner proxy's own", async () => {
  const server = await start("2");
  expect(await signUp(server, "198.51.100.9, 203.0.113.80, 10.0.0.2")).toStrictEqual({
    taken: true,
    ip: ["203.0.113.80"],
  });
  expect(await signUp(server, "198.51.100.10, 203.0.113.80, 10.0.0.3")).toStrictEqual({ taken: false, ip: [] });
});

test("0 hops under plain next start: no address to believe, so the consent record keeps no address, and the log says why", async () => {
  const server = await start("0", "next start");
  // Plain `next start` may load the instrumentation hook with the first request, so the line is awaited after one.
  expect(await signUp(server, "203.0.113.81")).toStrictEqual({ taken: true, ip: [null] });
  await expect
    .poll(() => server.output())
    .toContain('"event":"client_address","trustedProxyHops":0,"setBy":"setting","from":"unavailable"');
});
