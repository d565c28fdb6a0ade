import { once } from "node:events";
import { Webhook } from "standardwebhooks";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { postSignupWithoutScript, startNextServer } from "../support/next-server";
import type { Started } from "../support/processes";
import { startRedisServer } from "../support/redis-server";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { newWebhookSecret } from "../support/webhook-secrets";
import { uniquePhone } from "./receiver-client";
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
  // A number of this worker's own (a retry runs in a new worker): a number on the list already is not sent again.
  return { name, phone: uniquePhone().e164, consent: "on" };
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
  const e164 = (phone: string) => phone.replace(/[^\d+]/g, "");
  expect(verify(first, signedFirst)).toEqual({ phone: e164(one.phone), name: one.name });
  expect(verify(second, signedSecond)).toEqual({ phone: e164(two.phone), name: two.name });
  expect(() => verify(first, signedSecond)).toThrow();
});

/** Starts a server that must refuse to start; resolves to its exit code and output. */
function startupFailure(env: Record<string, string>) {
  // Next may print "Ready" before it runs instrumentation; either way the process must end.
  return start(env).then(
    async (server) => {
      if (server.child.exitCode === null) await once(server.child, "exit");
      return { code: server.child.exitCode, output: server.output() };
    },
    (error: Error & { code?: number; output?: string }) => ({ code: error.code, output: error.output }),
  );
}

test("a malformed secret stops the server at start, naming the variable", async () => {
  const failure = await startupFailure({ WAITLIST_WEBHOOK_SECRET: "whsec_tooShort" });
  expect(failure.code).toBe(1);
  expect(failure.output).toContain('"event":"startup_failed"');
  expect(failure.output).toContain("WAITLIST_WEBHOOK_SECRET");
  expect(failure.output).not.toContain("whsec_tooShort");
});

test("a refused visitor without JavaScript reads why, and nothing is sent", async () => {
  const server = await start({ RATE_LIMIT_FORM_POINTS: "1" });
  const first = signup();
  // The same post, within the limit, goes through: the address's one point.
  const accepted = await postSignupWithoutScript(server.url, first, { "x-forwarded-for": "203.0.113.77" });
  expect(accepted.html).toContain(waitlistMessages.success.title);
  expect(receiver.withName(first.name)).toHaveLength(1);
  const second = signup();
  const { status, html } = await postSignupWithoutScript(server.url, second, { "x-forwarded-for": "203.0.113.77" });

  expect(status).toBe(200);
  expect(html).toContain("Too many attempts");
  expect(html).not.toContain(waitlistMessages.success.title);
  expect(receiver.withName(second.name)).toEqual([]);
});

test("a stalled Redis delays no visitor: the limits fall back to memory, and the log says so once", async () => {
  const redis = await startRedisServer();
  started.push(redis);
  const server = await start({ REDIS_URL: redis.url, WEBHOOK_DEADLINE_MS: "3000" });
  // Connected first; then stopped, not killed: it keeps the connection open and never answers.
  await expect.poll(() => server.output()).toContain('"event":"rate_limits_shared"');
  // One sign-up while Redis answers: the server's first post loads its modules, which under CI's load can take longer
  // than the abort below allows; what is measured is a post while Redis stalls.
  expect((await postSignupWithoutScript(server.url, signup(), {})).status).toBe(200);
  redis.child.kill("SIGSTOP");
  try {
    const answers = [];
    for (let i = 0; i < 2; i += 1) {
      const fields = signup();
      // Without the command timeout this post waits on Redis for good; give up on it at twice the deadline.
      answers.push({ fields, ...(await postSignupWithoutScript(server.url, fields, {}, AbortSignal.timeout(6_000))) });
    }
    for (const { fields, status, html } of answers) {
      expect(status).toBe(200);
      expect(html).toContain(waitlistMessages.success.text.replaceAll("'", "&#x27;"));
      expect(receiver.withName(fields.name)).toHaveLength(1);
    }
    expect(server.output().match(/"event":"redis_unavailable"/g)).toHaveLength(1);
  } finally {
    redis.child.kill("SIGCONT");
  }
});

test("start-up refuses a webhook URL with credentials and a non-ASCII auth header, naming only the variables", async () => {
  const failure = await startupFailure({
    WAITLIST_WEBHOOK_URL: "https://operator:s3cret-pass@n8n.example.com/webhook/lead",
    CONTACT_WEBHOOK_AUTH_HEADER: "X-Sous-Key: clé-€-secrète",
  });
  expect(failure.code).toBe(1);
  expect(failure.output).toContain('"event":"startup_failed"');
  expect(failure.output).toContain("WAITLIST_WEBHOOK_URL must not hold a user name or password");
  expect(failure.output).toContain("CONTACT_WEBHOOK_AUTH_HEADER must be printable ASCII");
  expect(failure.output).not.toContain("s3cret-pass");
  expect(failure.output).not.toContain("secrète");
  expect(failure.output).not.toContain("webhook_configured");
});

test("SMS pumping: spellings, a failing receiver and an IPv6 /64 cannot walk around the limits", async () => {
  const server = await start({ WAITLIST_WEBHOOK_SECRET: newWebhookSecret() });
  const post = (fields: Record<string, string>, address: string) =>
    postSignupWithoutScript(server.url, fields, { "x-forwarded-for": address });
  const namesOf = (prefix: string) =>
    receiver.received.filter((request) => (request.json as { name?: string })?.name?.startsWith(prefix));

  // One number in five spellings, from five addresses: three sign-ups at most, and one welcome (the number is on the list).
  const spelled = `Pump ${process.pid} spelled`;
  const spellings = ["(555) 201-4477", "5552014477", "+1 555 201 4477", "555.201.4477", "1-555-201-4477"];
  const spelledAnswers = [];
  for (const [i, phone] of spellings.entries())
    spelledAnswers.push(await post({ name: `${spelled} ${i}`, phone, consent: "on" }, `198.18.1.${i + 1}`));
  expect(namesOf(spelled)).toHaveLength(1);
  expect(spelledAnswers.filter(({ html }) => html.includes("Too many attempts"))).toHaveLength(2);

  // The receiver answers 500 every time: ten posts for one number, from ten addresses.
  const failing = `Pump ${process.pid} failing`;
  const answers = [];
  for (let i = 0; i < 10; i += 1) {
    answers.push(
      await post(
        { name: `${failing} ${i} [status=500]`, phone: "+1 555 202 4477", consent: "on" },
        `198.18.2.${i + 1}`,
      ),
    );
  }
  // The three the limit lets through reach the receiver as one lead (one number, one lead), tried again; the rest never do.
  expect(new Set(namesOf(failing).map((request) => request.headers["webhook-id"])).size).toBe(1);
  expect(answers.filter(({ html }) => html.includes("Too many attempts"))).toHaveLength(7);

  // Eight addresses of one /64, each with its own number: five at most.
  const network = `Pump ${process.pid} network`;
  for (let i = 1; i <= 8; i += 1) {
    await post(
      { name: `${network} ${i}`, phone: `+1 555 203 ${String(4400 + i)}`, consent: "on" },
      `2001:db8:77:1::${i}`,
    );
  }
  expect(namesOf(network)).toHaveLength(5);
});
