import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { postSignupWithoutScript, startNextServer } from "../support/next-server";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { expect, test } from "./fixtures";

// The alerts hear the leads a server settles, whichever of Next's bundles
// settles them: a visitor's sign-up goes through the server action's bundle,
// apart from instrumentation.ts where the server starts. Each test starts its
// own server on the e2e build, with a database of its own.
test.describe.configure({ mode: "serial" });

let receiver: WebhookReceiver;
let dataDir: string;
const started: { stop(): Promise<void> }[] = [];

test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "sous-alerts-"));
});
test.afterEach(async () => {
  receiver.outage(undefined);
  await Promise.all(started.splice(0).map((server) => server.stop()));
  await rm(dataDir, { recursive: true, force: true });
});
test.afterAll(() => receiver.close());

let counter = 0;
function signup() {
  counter += 1;
  return { name: `Grace ${process.pid}a${counter}`, phone: `+1 555 030 ${String(1000 + counter)}`, consent: "on" };
}

const failureText = waitlistMessages.failure.text.replaceAll("'", "&#x27;");
const alertsAt = (hook: string) => receiver.received.filter((request) => request.path === `/hooks/${hook}`);

for (const command of ["next start", "npm start"] as const) {
  test(`under ${command}, a sign-up the workflow refuses raises the failing alert; without ALERT_WEBHOOK_URL none goes out`, async () => {
    const hook = `alerts-${command.replace(" ", "-")}-${counter}`;
    const serve = async (env: Record<string, string>) => {
      const server = await startNextServer(
        {
          WAITLIST_WEBHOOK_URL: `${receiver.url}/hooks/waitlist`,
          DATA_DIR: dataDir,
          WEBHOOK_DEADLINE_MS: "2000",
          WEBHOOK_RETRY_BASE_MS: "20",
          REDELIVERY_POLL_MS: "600000",
          ...env,
        },
        undefined,
        command,
      );
      started.push(server);
      // A loaded machine's start takes its time: this waits for the line, it times nothing.
      await expect.poll(() => server.output(), { timeout: 30_000 }).toContain('"event":"database_ready"');
      return server;
    };
    receiver.outage(503);

    // Without an alert URL: the visitor is told, and nothing reaches an alert hook.
    const quiet = await serve({});
    const mark = receiver.received.length;
    const first = await postSignupWithoutScript(quiet.url, signup());
    expect(first.html).toContain(failureText);
    await started.pop()!.stop();
    expect(receiver.received.slice(mark).map((request) => request.path)).toStrictEqual(
      Array(receiver.received.length - mark).fill("/hooks/waitlist"),
    );

    // The same set-up with ALERT_WEBHOOK_URL: the failing alert arrives, counting both leads.
    const alerting = await serve({ ALERT_WEBHOOK_URL: `${receiver.url}/hooks/${hook}` });
    const second = await postSignupWithoutScript(alerting.url, signup());
    expect(second.html).toContain(failureText);
    await expect.poll(() => alertsAt(hook).length, { timeout: 10_000 }).toBe(1);
    expect(alertsAt(hook)[0]!.json).toMatchObject({ kind: "failing", form: "waitlist", leads: 2 });
  });
}
