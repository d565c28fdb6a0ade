import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Webhook } from "standardwebhooks";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { postSignupWithoutScript, startNextServer } from "../support/next-server";
import type { Started } from "../support/processes";
import { startRedisServer } from "../support/redis-server";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { newWebhookSecret } from "../support/webhook-secrets";
import { expect, test } from "./fixtures";

// Leads that outlive a workflow outage: each test starts its own `next start`
// processes on the e2e build (and Redis where it needs one), and stops them.
test.describe.configure({ mode: "serial" });

let receiver: WebhookReceiver;
let secret: string;
let dataDir: string;
const started: Started[] = [];

test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.beforeEach(async () => {
  secret = newWebhookSecret();
  dataDir = await mkdtemp(path.join(tmpdir(), "sous-leads-"));
});
test.afterEach(async () => {
  receiver.outage(undefined);
  await Promise.all(started.splice(0).map((process) => process.stop()));
  await rm(dataDir, { recursive: true, force: true });
});
test.afterAll(() => receiver.close());

/** The settings every server here shares: signed, a store of its own, quick redelivery. */
const settings = () => ({
  WAITLIST_WEBHOOK_URL: `${receiver.url}/hooks/waitlist`,
  WAITLIST_WEBHOOK_SECRET: secret,
  OUTBOX_DIR: dataDir,
  WEBHOOK_RETRY_BASE_MS: "20",
  REDELIVERY_SCHEDULE_SECONDS: "1,1,1,1,1,1,1,1,1,1",
  REDELIVERY_POLL_MS: "200",
});

async function start(env: Record<string, string> = {}) {
  const server = await startNextServer({ ...settings(), ...env });
  started.push(server);
  return server;
}

let counter = 0;
function signup() {
  counter += 1;
  return { name: `Hedy ${process.pid}r${counter}`, phone: `+1 555 020 ${String(1000 + counter)}`, consent: "on" };
}

const failureText = waitlistMessages.failure.text;
const successText = waitlistMessages.success.text.replaceAll("'", "&#x27;");
const idsOf = (name: string) => new Set(receiver.withName(name).map((request) => request.headers["webhook-id"]));
const acknowledged = (name: string) => receiver.withName(name).filter((request) => request.answered === 200);
/** Lets several redelivery passes go by. */
const afterSomePasses = () => new Promise((resolve) => setTimeout(resolve, 1_500));

/** Runs the operator's command with the servers' store settings. */
async function leads(...args: string[]) {
  const { stdout } = await promisify(execFile)("npm", ["run", "--silent", "leads", "--", ...args], {
    env: { ...process.env, ...settings() },
  });
  return stdout;
}

test("a lead from an outage survives a crash and arrives once, signed, under its first webhook-id", async () => {
  receiver.outage(503);
  const first = await start();
  const fields = signup();
  const { html } = await postSignupWithoutScript(first.url, fields);
  expect(html).toContain(failureText);
  expect(receiver.withName(fields.name).length).toBeGreaterThan(0);

  first.child.kill("SIGKILL");
  receiver.outage(undefined);
  await start();

  await expect.poll(() => acknowledged(fields.name).length, { timeout: 20_000 }).toBe(1);
  await afterSomePasses();
  const requests = receiver.withName(fields.name);
  expect(acknowledged(fields.name)).toHaveLength(1);
  expect(requests.at(-1)?.answered).toBe(200);
  expect(idsOf(fields.name).size).toBe(1);
  const delivered = requests.at(-1)!;
  expect(new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>)).toEqual({
    phone: fields.phone.replace(/[^\d+]/g, ""),
    name: fields.name,
  });
  // Nothing personal is kept once the lead is delivered.
  expect(await readdir(path.join(dataDir, "pending"))).toEqual([]);
});

test("two instances sharing Redis deliver a pending lead exactly once", async () => {
  const redis = await startRedisServer();
  started.push(redis);
  receiver.outage(503);
  const [a] = await Promise.all([start({ REDIS_URL: redis.url }), start({ REDIS_URL: redis.url })]);
  const fields = signup();
  expect((await postSignupWithoutScript(a.url, fields)).html).toContain(failureText);

  receiver.outage(undefined);
  await expect.poll(() => acknowledged(fields.name).length, { timeout: 20_000 }).toBe(1);
  await afterSomePasses();
  expect(acknowledged(fields.name)).toHaveLength(1);
  expect(receiver.withName(fields.name).at(-1)?.answered).toBe(200);
  expect(idsOf(fields.name).size).toBe(1);
});

test("a visitor who tries again after the error makes one lead for the workflow", async () => {
  receiver.outage(503);
  // A long first delay: only the visitor's tries reach the receiver.
  const server = await start({ REDELIVERY_SCHEDULE_SECONDS: "3600" });
  const fields = signup();
  expect((await postSignupWithoutScript(server.url, fields)).html).toContain(failureText);
  expect((await postSignupWithoutScript(server.url, fields)).html).toContain(failureText);
  receiver.outage(undefined);
  expect((await postSignupWithoutScript(server.url, fields)).html).toContain(successText);

  expect(acknowledged(fields.name)).toHaveLength(1);
  expect(idsOf(fields.name).size).toBe(1);
  expect(await readdir(path.join(dataDir, "pending"))).toEqual([]);
});

test("a lead whose schedule is spent is listed as dead, and the operator's retry delivers it", async () => {
  receiver.outage(503);
  const server = await start({ REDELIVERY_SCHEDULE_SECONDS: "1" });
  const fields = signup();
  await postSignupWithoutScript(server.url, fields);
  await expect.poll(() => server.output(), { timeout: 20_000 }).toContain('"event":"lead_dead"');
  const [webhookId] = idsOf(fields.name);

  const listed = await leads();
  expect(listed).toContain("waitlist: 1 dead");
  expect(listed).toContain(String(webhookId));
  expect(listed).toContain("last failure status 503");
  // No personal data unless asked.
  expect(listed).not.toContain(fields.name);
  expect(await leads("--show")).toContain(fields.name);

  receiver.outage(undefined);
  expect(await leads("retry", "--dead")).toContain("delivered 1");
  expect(acknowledged(fields.name)).toHaveLength(1);
  expect(idsOf(fields.name)).toEqual(new Set([webhookId]));
  expect(await leads()).toContain("No pending or dead leads.");
});

test("a stray temporary or truncated file in the store is never sent", async () => {
  const store = path.join(dataDir, "pending");
  await mkdir(store, { recursive: true });
  const token = `Stray ${process.pid}`;
  const lead = {
    id: "msg_stray",
    form: "waitlist",
    key: "a".repeat(64),
    payload: { phone: "+15550201999", name: token },
    createdAt: Date.now(),
    attempts: 1,
    rounds: 0,
    nextAttemptAt: 0,
    state: "pending",
  };
  await writeFile(path.join(store, `${"a".repeat(64)}.json.1.tmp`), JSON.stringify(lead));
  await writeFile(path.join(store, `${"b".repeat(64)}.json`), JSON.stringify({ ...lead, key: "b".repeat(64) }).slice(0, 60));

  const server = await start();
  await expect.poll(() => server.output()).toContain("Ready in");
  await afterSomePasses();
  expect(receiver.withName(token)).toEqual([]);
  expect(await leads()).toContain("No pending or dead leads.");
});
