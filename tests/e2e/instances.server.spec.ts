import { once } from "node:events";
import { Webhook } from "standardwebhooks";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { postSignupWithoutScript, startNextServer } from "../support/next-server";
import type { Started } from "../support/processes";
import { startRedisServer } from "../support/redis-server";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { newWebhookSecret } from "../support/webhook-secrets";
import { expect, test } from "./fixtures";

// Each test starts its own `next start` processes on the e2e build, and stops them.
test.describe.configure({ mode: "serial" });

let receiver: WebhookReceiver;
const started: Started[] = [];

test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.afterEach(async () => {
  await Promise.all(started.splice(0).map((process) => process.stop()));
});
test.afterAll(() => receiver.close());

async function start(env: Record<string, string>) {
  const server = await startNextServer({ WAITLIST_WEBHOOK_URL: `${receiver.url}/hooks/waitlist`, ...env });
  started.push(server);
  return server;
}

let counter = 0;
function signup() {
  counter += 1;
  const name = `Grace ${process.pid}i${counter}`;
  return { name, phone: `+1 555 010 ${String(1000 + counter)}`, consent: "on" };
}

test("two instances share the rate limits through Redis", async () => {
  const redis = await startRedisServer();
  started.push(redis);
  const [a, b] = await Promise.all([start({ REDIS_URL: redis.url }), start({ REDIS_URL: redis.url })]);

  const tokens: string[] = [];
  const statuses: number[] = [];
  for (let i = 0; i < 12; i += 1) {
    const fields = signup();
    tokens.push(fields.name);
    const server = i % 2 === 0 ? a : b;
    const { status } = await postSignupWithoutScript(server.url, fields, { "x-forwarded-for": "203.0.113.50" });
    statuses.push(status);
  }

  expect(statuses.every((status) => status === 200)).toBe(true);
  const delivered = tokens.filter((token) => receiver.withName(token).length > 0);
  // Five per address in all, not five per instance.
  expect(delivered).toHaveLength(5);
});

test("a restart with a new secret signs with it, without a rebuild", async () => {
  const [first, second] = [newWebhookSecret(), newWebhookSecret()];

  const before = await start({ WAITLIST_WEBHOOK_SECRET: first });
  const one = signup();
  const answer = await postSignupWithoutScript(before.url, one);
  expect(answer.html).toContain("on the waitlist!");
  await before.stop();

  const after = await start({ WAITLIST_WEBHOOK_SECRET: second });
  const two = signup();
  await postSignupWithoutScript(after.url, two);

  const [signedFirst] = receiver.withName(one.name);
  const [signedSecond] = receiver.withName(two.name);
  const verify = (secret: string, request: typeof signedFirst) =>
    new Webhook(secret).verify(request?.body ?? "", (request?.headers ?? {}) as Record<string, string>);
  expect(verify(first, signedFirst)).toEqual({ phone: one.phone, name: one.name });
  expect(verify(second, signedSecond)).toEqual({ phone: two.phone, name: two.name });
  expect(() => verify(first, signedSecond)).toThrow();
});

test("a malformed secret stops the server at start, naming the variable", async () => {
  // Next may print "Ready" before it runs instrumentation; either way the process must end.
  const failure = await start({ WAITLIST_WEBHOOK_SECRET: "whsec_tooShort" }).then(
    async (server) => {
      if (server.child.exitCode === null) await once(server.child, "exit");
      return { code: server.child.exitCode, output: server.output() };
    },
    (error: Error & { code?: number; output?: string }) => ({ code: error.code, output: error.output }),
  );
  expect(failure.code).toBe(1);
  expect(failure.output).toContain('"event":"startup_failed"');
  expect(failure.output).toContain("WAITLIST_WEBHOOK_SECRET");
  expect(failure.output).not.toContain("whsec_tooShort");
});

test("a refused visitor without JavaScript reads why, and nothing is sent", async () => {
  const server = await start({ RATE_LIMIT_FORM_POINTS: "1" });
  const first = signup();
  await postSignupWithoutScript(server.url, first, { "x-forwarded-for": "203.0.113.77" });
  const second = signup();
  const { status, html } = await postSignupWithoutScript(server.url, second, { "x-forwarded-for": "203.0.113.77" });

  expect(status).toBe(200);
  expect(html).toContain("Too many attempts");
  expect(html).not.toContain(waitlistMessages.success.title);
  expect(receiver.withName(second.name)).toEqual([]);
});
