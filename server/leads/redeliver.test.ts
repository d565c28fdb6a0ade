import { Webhook } from "standardwebhooks";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { readEnv } from "@/server/env";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { nextAttemptAfter, redeliveryPass } from "./redeliver";
import { sendLead } from "./send-lead";
import { leadStoreFor } from "./stores";

const receiver = setupWebhookReceiver();
let secret: string;
let counter = 0;

beforeEach(() => {
  secret = newWebhookSecret();
  vi.stubEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
  vi.stubEnv("WAITLIST_WEBHOOK_SECRET", secret);
  vi.stubEnv("WEBHOOK_RETRY_BASE_MS", "10");
  vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "1,1");
  for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
});

/** A waitlist body whose name tells the receiver how to answer, e.g. [fail=3]. */
function payload(directive = "") {
  counter += 1;
  return { phone: "+15551234567", name: `Ada r${counter}x${Date.now()} ${directive}`.trim() };
}

const send = (body: Record<string, unknown>) => sendLead("waitlist", body, readEnv(), performance.now());
const store = () => leadStoreFor(readEnv());
const logged = (event: string) =>
  (["info", "warn", "error"] as const)
    .flatMap((method) => vi.mocked(console[method]).mock.calls)
    .map((call) => JSON.parse(String(call[0])))
    .filter((line) => line.event === event);
/** Every lead is due now: what the schedule would make wait, the test does not. */
const everythingDue = () => redeliveryPass(readEnv(), (lead) => lead.state === "pending");

describe("nextAttemptAfter", () => {
  it("waits each delay of the schedule in turn, then gives up", () => {
    expect(nextAttemptAfter(0, [5, 60], 1_000)).toBe(6_000);
    expect(nextAttemptAfter(1, [5, 60], 1_000)).toBe(61_000);
    expect(nextAttemptAfter(2, [5, 60], 1_000)).toBeUndefined();
  });

  it("spans about a day and a half by default", () => {
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "");
    const total = readEnv().REDELIVERY_SCHEDULE_SECONDS.reduce((sum, delay) => sum + delay, 0);
    expect(total / 3600).toBeGreaterThan(30);
    expect(total / 3600).toBeLessThan(42);
  });
});

describe("sendLead", () => {
  it("keeps nothing once the webhook acknowledged the lead", async () => {
    const body = payload();
    expect(await send(body)).toMatchObject({ ok: true });
    expect((await store().list()).filter((lead) => lead.payload.name === body.name)).toStrictEqual([]);
  });

  it("keeps a lead the webhook failed, with its webhook-id, and logs no value", async () => {
    const body = payload("[status=503]");
    const delivery = await send(body);
    expect(delivery).toMatchObject({ ok: false, status: 503, attempts: 3 });
    const kept = (await store().list()).find((lead) => lead.payload.name === body.name);
    expect(kept).toMatchObject({ id: delivery.webhookId, attempts: 3, rounds: 0, state: "pending", lastFailure: "status 503" });
    const [line] = logged("lead_pending");
    expect(line).toMatchObject({ form: "waitlist", webhookId: delivery.webhookId, attempts: 3, reason: "status 503" });
    expect(JSON.stringify(line)).not.toContain(body.name);
  });

  it("sends a visitor's second try of a pending lead under its webhook-id, and its success settles it", async () => {
    const body = payload("[fail=3]");
    const first = await send(body);
    expect(first.ok).toBe(false);
    const second = await send(body);
    expect(second).toMatchObject({ ok: true, webhookId: first.webhookId });
    expect(new Set(receiver.withName(body.name).map((request) => request.headers["webhook-id"]))).toStrictEqual(new Set([first.webhookId]));
    expect(await store().list()).not.toContainEqual(expect.objectContaining({ id: first.webhookId }));
  });
});

describe("redeliveryPass", () => {
  it("redelivers a pending lead signed afresh with its webhook-id, then forgets it", async () => {
    const body = payload("[fail=3]");
    const first = await send(body);
    const rotated = newWebhookSecret();
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", rotated);

    expect(await everythingDue()).toMatchObject({ delivered: 1 });
    const requests = receiver.withName(body.name);
    expect(requests.map((request) => request.answered)).toStrictEqual([503, 503, 503, 200]);
    const last = requests.at(-1)!;
    expect(last.headers["webhook-id"]).toBe(first.webhookId);
    expect(() => new Webhook(rotated).verify(last.body, last.headers as Record<string, string>)).not.toThrow();
    expect(logged("lead_redelivered")).toStrictEqual([expect.objectContaining({ webhookId: first.webhookId, attempts: 4 })]);

    expect(await everythingDue()).toMatchObject({ delivered: 0 });
    expect(receiver.withName(body.name)).toHaveLength(4);
  });

  it("waits for the schedule: a lead is not redelivered before it is due", async () => {
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "3600");
    const body = payload("[fail=3]");
    await send(body);
    await redeliveryPass(readEnv());
    expect(receiver.withName(body.name)).toHaveLength(3);
  });

  it("keeps a lead as dead once the schedule is spent, and an operator's pass of the dead delivers it", async () => {
    const body = payload("[fail=5]");
    const first = await send(body);
    expect(await everythingDue()).toMatchObject({ pending: 1 });
    expect(await everythingDue()).toMatchObject({ dead: 1 });
    expect(logged("lead_dead")).toStrictEqual([expect.objectContaining({ webhookId: first.webhookId, attempts: 5, reason: "status 503" })]);
    // Dead leads are left alone by the timer's passes...
    expect(await everythingDue()).toMatchObject({ delivered: 0, dead: 0 });
    // ...and delivered when the operator asks.
    expect(await redeliveryPass(readEnv(), (lead) => lead.state === "dead" && lead.id === first.webhookId)).toMatchObject({ delivered: 1 });
    expect(receiver.withName(body.name).at(-1)).toMatchObject({ answered: 200 });
  });

  it("leaves a lead another worker holds", async () => {
    const body = payload("[fail=3]");
    const first = await send(body);
    const lead = (await store().list()).find((kept) => kept.id === first.webhookId)!;
    expect(await store().lease(lead.key, 60_000)).toBe(true);
    expect(await redeliveryPass(readEnv(), (kept) => kept.id === first.webhookId)).toMatchObject({ busy: 1, delivered: 0 });
    await store().release(lead.key);
    expect(receiver.withName(body.name)).toHaveLength(3);
  });
});
