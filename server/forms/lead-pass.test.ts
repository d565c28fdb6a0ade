import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { closeDatabases } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { setupLeadSending } from "@/tests/support/lead-sending";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import * as leadStore from "@/server/outbox/outbox-store";
import { newClaim, claimLead, attemptsOf, insertLead } from "@/server/outbox/outbox-store";
import { PAUSE_AFTER_FAILURES } from "@/server/outbox/pass";
import { deadLeads, dueNow, redeliveryPass } from "./leads";
import { nextRound } from "@/server/outbox/send";

const { receiver, store, payload, send, row, logged } = setupLeadSending();

/** Waits on the real clock until `done()` (vi.waitFor would move a fake clock on as it polls). */
async function until(done: () => boolean) {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Every pending lead is due now: what the schedule would make wait, the test does not. */
const everythingDue = () => redeliveryPass(readEnv(), { due: () => dueNow(Number.MAX_SAFE_INTEGER) });

describe("nextRound", () => {
  const after = (rounds: number, probe = false) =>
    nextRound({ rounds, next_attempt_at: 500 }, { probe, schedule: [5, 60, 600], now: 1_000 });

  it("waits each later delay of the schedule in turn, then gives up", () => {
    expect(after(0)).toStrictEqual({ rounds: 1, next: 61_000 });
    expect(after(1)).toStrictEqual({ rounds: 2, next: 601_000 });
    expect(after(2)).toStrictEqual({ rounds: 3, next: undefined });
  });

  it("keeps a probe's place and rounds", () => {
    expect(after(1, true)).toStrictEqual({ rounds: 1, next: 500 });
  });

  it("spans about a day and a half by default", () => {
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "");
    const total = readEnv().REDELIVERY_SCHEDULE_SECONDS.reduce((sum, delay) => sum + delay, 0);
    expect(total / 3600).toBeGreaterThan(30);
    expect(total / 3600).toBeLessThan(42);
  });
});

describe("a visitor's submission", () => {
  it("is delivered once acknowledged, with its attempt in the delivery log, and is not sent again", async () => {
    const body = payload();
    const delivery = await send(body);
    expect(delivery).toMatchObject({ ok: true, status: 200, via: "webhook" });
    expect(await row(delivery.webhookId)).toMatchObject({
      state: "delivered",
      attempts: 1,
      dedupe_key: null,
      payload: JSON.stringify(body),
    });
    expect(await attemptsOf(await store(), delivery.webhookId)).toStrictEqual([
      expect.objectContaining({ number: 1, status: 200, failure: null, sender: "visitor" }),
    ]);
    expect(await everythingDue()).toMatchObject({ delivered: 0 });
    expect(receiver.withName(body.name)).toHaveLength(1);
    // The visitor's own delivery is the submission's line, not a redelivery.
    expect(logged("lead_redelivered")).toStrictEqual([]);
  });

  it("is kept before its first attempt: pending, its first redelivery due after the schedule's first delay, claimed for the deadline and 5 s", async () => {
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "60,120");
    vi.stubEnv("WEBHOOK_DEADLINE_MS", "2000");
    vi.stubEnv("WEBHOOK_ATTEMPT_TIMEOUT_MS", "1500");
    const body = payload("[delay=400]");
    const sending = send(body);
    await vi.waitFor(() => expect(receiver.withName(body.name)).toHaveLength(1));
    const rows = await (
      await store()
    ).db
      .selectFrom("outbox")
      .selectAll()
      .where("payload", "=", JSON.stringify(body))
      .execute();
    expect(rows).toHaveLength(1);
    const [inFlight] = rows;
    expect(inFlight).toMatchObject({ state: "pending", attempts: 0, claimed_by: expect.any(String) });
    expect(inFlight!.next_attempt_at - inFlight!.created_at).toBe(60_000);
    expect(inFlight!.claimed_until! - inFlight!.created_at).toBe(2_000 + 5_000);
    expect(await sending).toMatchObject({ ok: true, webhookId: inFlight!.id });
  });

  it("answers the visitor by what the workflow said when the database fails after the attempt, and the log names the lead", async () => {
    const body = payload("[delay=300]");
    const sending = send(body);
    await vi.waitFor(() => expect(receiver.withName(body.name)).toHaveLength(1));
    // The database goes away while the attempt is in flight: the delivery cannot be recorded.
    await closeDatabases();
    const delivery = await sending;
    expect(delivery).toMatchObject({ ok: true, status: 200 });
    expect(logged("lead_store_failed")).toStrictEqual([
      expect.objectContaining({ level: "error", form: "waitlist", webhookId: delivery.webhookId }),
    ]);
    expect(JSON.stringify(logged("lead_store_failed"))).not.toContain(body.name);
    // The next lead opens it again: the outage is over, and the log says so.
    expect(await send(payload())).toMatchObject({ ok: true });
    expect(logged("lead_store_recovered")).toHaveLength(1);
  });

  it("keeps a lead the webhook failed, with its webhook-id, and logs no value", async () => {
    const body = payload("[status=503]");
    const delivery = await send(body);
    expect(delivery).toMatchObject({ ok: false, status: 503, attempts: 3 });
    expect(await row(delivery.webhookId)).toMatchObject({
      state: "pending",
      attempts: 3,
      rounds: 0,
      last_failure: "status 503",
      claimed_by: null,
    });
    const [line] = logged("lead_pending");
    const kept = await row(delivery.webhookId);
    expect(line).toMatchObject({
      level: "warn",
      form: "waitlist",
      webhookId: delivery.webhookId,
      attempts: 3,
      reason: "status 503",
    });
    expect(line.nextAttemptAt).toBe(new Date(kept!.next_attempt_at).toISOString());
    expect(JSON.stringify(line)).not.toContain(body.name);
    // The schedule starts when the visitor's last attempt ended, not when the lead was kept.
    const [, , last] = await attemptsOf(await store(), delivery.webhookId);
    expect(kept!.next_attempt_at).toBeGreaterThanOrEqual(last!.at + last!.duration_ms + 1_000);
    expect(kept!.next_attempt_at).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it("does not take n8n's 200 while it starts for a delivery: sent again, delivered by the next attempt, or kept", async () => {
    const soon = await send(payload("[starting=1]"));
    expect(soon).toMatchObject({ ok: true, status: 200, attempts: 2 });
    expect((await attemptsOf(await store(), soon.webhookId)).map((attempt) => attempt.failure)).toStrictEqual([
      "unready",
      null,
    ]);
    const late = await send(payload("[starting=9]"));
    expect(late).toMatchObject({ ok: false, status: 200, attempts: 3 });
    expect(await row(late.webhookId)).toMatchObject({ state: "pending", attempts: 3, last_failure: "unready 200" });
  });

  it("keeps a pending lead's place and rounds when its visitor tries again and fails again", async () => {
    const body = payload("[status=503]");
    const first = await send(body);
    // A round of redelivery has run already: its place and round count are the schedule's.
    await (
      await store()
    ).db
      .updateTable("outbox")
      .set({ rounds: 1, next_attempt_at: 123_456 })
      .where("id", "=", first.webhookId)
      .execute();
    expect(await send(body)).toMatchObject({ ok: false, webhookId: first.webhookId, attempts: 3 });
    expect(await row(first.webhookId)).toMatchObject({
      state: "pending",
      rounds: 1,
      next_attempt_at: 123_456,
      attempts: 6,
    });
  });

  it("starts the schedule again when a visitor retries a dead lead", async () => {
    const body = payload("[status=503]");
    const first = await send(body);
    await (
      await store()
    ).db
      .updateTable("outbox")
      .set({ state: "dead", rounds: 2, next_attempt_at: 0 })
      .where("id", "=", first.webhookId)
      .execute();
    const again = await send(body);
    expect(again).toMatchObject({ ok: false, webhookId: first.webhookId, attempts: 3 });
    const kept = await row(first.webhookId);
    expect(kept).toMatchObject({ state: "pending", rounds: 0, attempts: 6 });
    expect(kept!.next_attempt_at).toBeGreaterThan(Date.now());
  });

  it("tells the visitor it failed, and sends nothing, when another sender holds the lead past the visitor's wait", async () => {
    vi.stubEnv("WEBHOOK_DEADLINE_MS", "600");
    const body = payload("[fail=3]");
    const first = await send(body);
    await claimLead(await store(), first.webhookId, newClaim(60_000));
    // The visitor's wait runs on a virtual clock: it polls the held lead (on the real one) until the test moves time on.
    vi.useFakeTimers({ toFake: ["performance"] });
    try {
      const polls = vi.spyOn(leadStore, "leadById");
      let answered = false;
      const pending = send(body).finally(() => (answered = true));
      await until(() => polls.mock.calls.filter(([, id]) => id === first.webhookId).length >= 2);
      // The deadline less 250 ms: one millisecond short of it, still waiting.
      vi.advanceTimersByTime(349);
      const seen = polls.mock.calls.length;
      await until(() => polls.mock.calls.length > seen);
      expect(answered).toBe(false);
      vi.advanceTimersByTime(1);
      const again = await pending;
      expect(again).toMatchObject({
        ok: false,
        via: "webhook",
        reason: "busy",
        webhookId: first.webhookId,
        attempts: 0,
        durationMs: 350,
      });
    } finally {
      vi.useRealTimers();
    }
    expect(receiver.withName(body.name)).toHaveLength(3);
  });

  it("sends a second try of a pending lead under its webhook-id, keeping its place, and its success settles it", async () => {
    const body = payload("[fail=3]");
    const first = await send(body);
    const due = (await row(first.webhookId))?.next_attempt_at;
    const second = await send(body);
    expect(second).toMatchObject({ ok: true, webhookId: first.webhookId });
    expect(new Set(receiver.withName(body.name).map((request) => request.headers["webhook-id"]))).toStrictEqual(
      new Set([first.webhookId]),
    );
    expect(await row(first.webhookId)).toMatchObject({ state: "delivered", attempts: 4, next_attempt_at: due });
  });

  it("waits for a pass that holds the lead instead of sending it a second time", async () => {
    const body = payload("[fail=3]");
    const first = await send(body);
    const taken = newClaim(60_000);
    await claimLead(await store(), first.webhookId, taken);
    const sentBefore = receiver.withName(body.name).length;
    const polls = vi.spyOn(leadStore, "leadById");
    const visitor = send(body);
    // The pass delivers once the visitor is seen waiting on the lead: simulated by recording the delivery under its claim.
    await vi.waitFor(() => expect(polls.mock.calls.some(([, id]) => id === first.webhookId)).toBe(true));
    await leadStore.settle(await store(), {
      row: { id: first.webhookId, attempts: 3 },
      claim: taken,
      change: { state: "delivered", delivered_at: Date.now(), dedupe_key: null },
      answered: ["delivered"],
      attempts: [],
    });
    expect(await visitor).toMatchObject({ ok: true, via: "webhook", webhookId: first.webhookId, attempts: 0 });
    expect(receiver.withName(body.name)).toHaveLength(sentBefore);
    expect(sentBefore).toBe(3);
  });

  it("is held, not sent, while its form has no webhook URL, and delivered by the first pass once it has one", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "");
    const body = payload();
    const delivery = await send(body);
    expect(delivery).toMatchObject({ ok: true, via: "held", attempts: 0 });
    expect(delivery.durationMs).toEqual(expect.any(Number));
    expect(await row(delivery.webhookId)).toMatchObject({ state: "held" });
    expect(await redeliveryPass(readEnv(), {})).toMatchObject({ delivered: 0, held: 0 });

    vi.stubEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
    expect(await redeliveryPass(readEnv(), {})).toMatchObject({ delivered: 1 });
    expect(receiver.withName(body.name)).toHaveLength(1);
    expect(await row(delivery.webhookId)).toMatchObject({ state: "delivered" });
  });

  it("still goes out when the database fails, and the log says so once per outage", async () => {
    vi.stubEnv("DATA_DIR", `${import.meta.filename}/no-folder-inside-a-file`);
    const [a, b] = [payload(), payload()];
    expect(await send(a)).toMatchObject({ ok: true });
    expect(await send(b)).toMatchObject({ ok: true });
    expect(receiver.withName(a.name)).toHaveLength(1);
    expect(receiver.withName(b.name)).toHaveLength(1);
    expect(logged("lead_store_failed")).toStrictEqual([
      expect.objectContaining({ level: "error", form: "waitlist", message: expect.stringContaining("DATA_DIR") }),
    ]);
    expect(JSON.stringify(logged("lead_store_failed"))).not.toContain(a.name);
    // A lead that fails now cannot be kept: no lead_pending promises a redelivery that will not come.
    expect(await send(payload("[status=503]"))).toMatchObject({ ok: false, status: 503 });
    expect(logged("lead_pending")).toStrictEqual([]);
    expect(logged("lead_store_failed")).toHaveLength(1);

    vi.unstubAllEnvs();
    vi.stubEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
    expect(await send(payload())).toMatchObject({ ok: true });
    expect(logged("lead_store_recovered")).toStrictEqual([expect.objectContaining({ level: "info" })]);
  });
});

describe("redeliveryPass", () => {
  it("redelivers a pending lead signed afresh with its webhook-id, then never again", async () => {
    const body = payload("[fail=3]");
    const first = await send(body);
    const rotated = newWebhookSecret();
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", rotated);

    expect(await everythingDue()).toMatchObject({ delivered: 1 });
    const requests = receiver.withName(body.name);
    expect(requests.map((request) => request.answered)).toStrictEqual([503, 503, 503, 200]);
    const last = requests.at(-1)!;
    expect(last.headers["webhook-id"]).toBe(first.webhookId);
    expect(last.headers["sous-redelivery-since"]).toBe(requests[1]!.headers["sous-redelivery-since"]);
    expect(last.headers["sous-redelivery-since"]).toMatch(/^\d{10}$/);
    expect(new Webhook(rotated).verify(last.body, last.headers as Record<string, string>)).toStrictEqual(body);
    expect(logged("lead_redelivered")).toStrictEqual([
      expect.objectContaining({
        level: "info",
        form: "waitlist",
        webhookId: first.webhookId,
        attempts: 4,
        status: 200,
      }),
    ]);
    expect((await attemptsOf(await store(), first.webhookId)).map((attempt) => attempt.sender)).toStrictEqual([
      "visitor",
      "visitor",
      "visitor",
      "pass",
    ]);

    expect(await everythingDue()).toMatchObject({ delivered: 0 });
    expect(receiver.withName(body.name)).toHaveLength(4);
  });

  it("waits for the schedule: a lead is not redelivered before it is due, and is once it is", async () => {
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "3600");
    const body = payload("[fail=3]");
    await send(body);
    expect(await redeliveryPass(readEnv(), {})).toMatchObject({ delivered: 0 });
    expect(receiver.withName(body.name)).toHaveLength(3);
    expect(await everythingDue()).toMatchObject({ delivered: 1 });
    expect(receiver.withName(body.name)).toHaveLength(4);
  });

  it("keeps a lead as dead once the schedule is spent, and an operator's pass of the dead delivers it", async () => {
    const body = payload("[fail=5]");
    const first = await send(body);
    expect(await everythingDue()).toMatchObject({ pending: 1 });
    expect(await everythingDue()).toMatchObject({ dead: 1 });
    expect(logged("lead_dead")).toStrictEqual([
      expect.objectContaining({ level: "error", webhookId: first.webhookId, attempts: 5, reason: "status 503" }),
    ]);
    // Dead leads are left alone by the timer's passes...
    expect(await everythingDue()).toMatchObject({ delivered: 0, dead: 0 });
    expect(receiver.withName(body.name)).toHaveLength(5);
    // ...and delivered when the operator asks.
    expect(
      await redeliveryPass(readEnv(), {
        sender: "operator",
        due: () => deadLeads,
      }),
    ).toMatchObject({
      delivered: 1,
    });
    expect(receiver.withName(body.name).at(-1)).toMatchObject({ answered: 200 });
  });

  it("leaves a lead another sender holds, and takes it once that claim expires", async () => {
    const body = payload("[fail=3]");
    const first = await send(body);
    await claimLead(await store(), first.webhookId, newClaim(60_000));
    expect(await everythingDue()).toMatchObject({ delivered: 0 });
    expect(receiver.withName(body.name)).toHaveLength(3);
    // The holder died: its claim runs out.
    await (
      await store()
    ).db
      .updateTable("outbox")
      .set({ claimed_until: 0 })
      .where("id", "=", first.webhookId)
      .execute();
    expect(await everythingDue()).toMatchObject({ delivered: 1 });
  });

  it("starts no attempt once its budget is spent: what is left keeps its place", async () => {
    vi.stubEnv("REDELIVERY_CONCURRENCY", "2");
    // Long enough that both attempts hang while the test moves the clock on.
    vi.stubEnv("WEBHOOK_ATTEMPT_TIMEOUT_MS", "1500");
    const leads = [];
    for (let i = 0; i < 6; i += 1) leads.push(await send(payload("[status=503]")));
    receiver.outage("hang");
    const before = receiver.received.length;
    // The budget runs on a clock the test moves: it is spent while the first two attempts hang.
    vi.useFakeTimers({ toFake: ["performance"] });
    const passing = redeliveryPass(readEnv(), {
      due: () => dueNow(Number.MAX_SAFE_INTEGER),
      budgetMs: 1_000,
    });
    await until(() => receiver.received.length - before === 2);
    vi.advanceTimersByTime(1_000);
    const summary = await passing;
    receiver.outage(undefined);
    expect(summary).toMatchObject({ pending: 2, budgetSpent: true });
    expect(receiver.received.length - before).toBe(2);
    const rows = await Promise.all(leads.map((lead) => row(lead.webhookId)));
    expect(rows.filter((lead) => lead?.attempts === 4)).toHaveLength(2);
    expect(rows.filter((lead) => lead?.attempts === 3 && lead.rounds === 0)).toHaveLength(4);
  });

  it(`stops calling a receiver after ${PAUSE_AFTER_FAILURES} failures in a row; its other leads wait for the next pass`, async () => {
    vi.stubEnv("REDELIVERY_CONCURRENCY", "1");
    const leads = [];
    for (let i = 0; i < 5; i += 1) leads.push(await send(payload("[status=503]")));
    const before = receiver.received.length;
    expect(await everythingDue()).toMatchObject({ pending: PAUSE_AFTER_FAILURES, paused: ["waitlist"] });
    expect(receiver.received.length - before).toBe(PAUSE_AFTER_FAILURES);
    const untouched = (await Promise.all(leads.map((lead) => row(lead.webhookId)))).filter(
      (lead) => lead?.rounds === 0,
    );
    expect(untouched).toHaveLength(5 - PAUSE_AFTER_FAILURES);
    expect(logged("receiver_paused")).toStrictEqual([
      expect.objectContaining({ level: "warn", form: "waitlist", failuresInARow: PAUSE_AFTER_FAILURES }),
    ]);
  });

  it(`does not count rows it cannot read as the receiver's failures: ${PAUSE_AFTER_FAILURES} of them pause nothing`, async () => {
    vi.stubEnv("REDELIVERY_CONCURRENCY", "1");
    const db = await store();
    for (let i = 0; i < PAUSE_AFTER_FAILURES; i += 1) {
      await insertLead(
        db,
        {
          id: `msg_unreadable-${i}`,
          receiver: "waitlist",
          dedupe_key: null,
          payload: "{",
          state: "pending",
          created_at: 0,
          next_attempt_at: i,
        },
        newClaim(0),
      );
    }
    const body = payload("[fail=3]");
    const good = await send(body);
    await db.db.updateTable("outbox").set({ next_attempt_at: 100 }).where("id", "=", good.webhookId).execute();
    expect(await everythingDue()).toMatchObject({ unreadable: PAUSE_AFTER_FAILURES, delivered: 1, paused: [] });
    expect(receiver.withName(body.name).at(-1)).toMatchObject({ answered: 200 });
  });

  it("never sends a row it cannot read nor one of a form the site no longer has, and still delivers the good ones", async () => {
    const db = await store();
    await insertLead(
      db,
      {
        id: "msg_corrupt",
        receiver: "waitlist",
        dedupe_key: null,
        payload: '{"phone":"+1555',
        state: "pending",
        created_at: 0,
        next_attempt_at: 0,
      },
      newClaim(0),
    );
    await insertLead(
      db,
      {
        id: "msg_foreign",
        receiver: "catering",
        dedupe_key: null,
        payload: '{"name":"Foreign"}',
        state: "pending",
        created_at: 0,
        next_attempt_at: 0,
      },
      newClaim(0),
    );
    const body = payload("[fail=3]");
    const good = await send(body);
    const before = receiver.received.length;

    expect(await everythingDue()).toMatchObject({ delivered: 1, unreadable: 1 });
    expect(receiver.received.length - before).toBe(1);
    expect(receiver.received.at(-1)?.headers["webhook-id"]).toBe(good.webhookId);
    expect(await row("msg_corrupt")).toMatchObject({ state: "dead", last_failure: "unreadable" });
    expect(logged("lead_unreadable").map((line) => line.webhookId)).toStrictEqual(["msg_corrupt"]);
    // No kind's: it waits, counted by /api/health under its form, for the operator.
    const foreign = await db.db.selectFrom("outbox").selectAll().where("id", "=", "msg_foreign").executeTakeFirst();
    expect(foreign).toMatchObject({ state: "pending", attempts: 0 });
  });
});

describe("the operator's retry of one lead", () => {
  it("sends that lead, whatever its schedule says, and no other", async () => {
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "3600");
    const [one, other] = [payload("[fail=3]"), payload("[fail=3]")];
    const first = await send(one);
    await send(other);
    expect(await redeliveryPass(readEnv(), { sender: "operator", ids: [first.webhookId] })).toMatchObject({
      delivered: 1,
      pending: 0,
    });
    expect(receiver.withName(one.name).at(-1)).toMatchObject({ answered: 200 });
    expect(receiver.withName(other.name)).toHaveLength(3);
    expect((await attemptsOf(await store(), first.webhookId)).at(-1)).toMatchObject({
      sender: "operator",
      status: 200,
    });
    // Delivered: asked again, there is nothing to send.
    expect(await redeliveryPass(readEnv(), { sender: "operator", ids: [first.webhookId] })).toMatchObject({
      delivered: 0,
      pending: 0,
    });
    expect(receiver.withName(one.name)).toHaveLength(4);
  });

  it("sends a lead the texts budget holds back, which a pass leaves waiting", async () => {
    vi.stubEnv("RATE_LIMIT_WAITLIST_PER_MINUTE", "1");
    await (await store()).db.deleteFrom("outbox_pace").execute();
    const [one, other] = [payload(), payload()];
    expect(await send(one)).toMatchObject({ ok: true, via: "webhook" });
    const kept = await send(other);
    expect(kept).toMatchObject({ ok: true, via: "budget" });
    expect(await redeliveryPass(readEnv(), { sender: "pass", ids: [kept.webhookId], budgetMs: 200 })).toMatchObject({
      delivered: 0,
    });
    expect(receiver.withName(other.name)).toHaveLength(0);
    expect(await redeliveryPass(readEnv(), { sender: "operator", ids: [kept.webhookId] })).toMatchObject({
      delivered: 1,
    });
    expect(receiver.withName(other.name)).toHaveLength(1);
  });

  it("makes one attempt at that lead when it fails again, however many workers the pass has", async () => {
    vi.stubEnv("REDELIVERY_CONCURRENCY", "4");
    const body = payload("[status=503]");
    const first = await send(body);
    expect(await redeliveryPass(readEnv(), { sender: "operator", ids: [first.webhookId] })).toMatchObject({
      delivered: 0,
      pending: 1,
    });
    expect(receiver.withName(body.name)).toHaveLength(4);
  });
});
