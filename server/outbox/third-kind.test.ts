import { sql } from "kysely";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { checkHealth } from "@/server/ops/health";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { newWebhookId, insertRows, rowsOf } from "./outbox-store";
import { markFailing } from "./alert-store";
import { alertsSettled } from "./alerts";
import { PAUSE_AFTER_FAILURES, probeFailing, probeReceiver, sendDue, type Sending } from "./pass";
import type { Kind } from "./send";

const receiver = setupWebhookReceiver();
const secret = newWebhookSecret();

// A kind the site does not have, whole: a newsletter's welcome, sent to its own receiver. The engine does the rest.
const newsletter: Kind = {
  owns: (name) => name === "newsletter",
  webhook: () => ({ url: `${receiver.url}/hooks/newsletter`, urlVariable: "", secrets: [secret], auth: undefined }),
  words: { pending: "pending", dead: "dead", held: "held", answered: ["delivered"] },
  answer: () => "delivered",
  events: { pending: "newsletter_pending", dead: "newsletter_dead" },
  facts: ({ row }) => ({ webhookId: row.id, attempts: row.attempts }),
};
const outcomes = ["delivered", "pending", "dead", "held", "unreadable"] as const;
const sending: Sending<undefined, (typeof outcomes)[number]> = {
  kind: newsletter,
  due: (by) => ({ wanted: [{ receivers: ["newsletter"], states: ["pending"], by }] }),
  outcomes,
  outcome: (state) => state as (typeof outcomes)[number],
};

/** `count` welcomes, due now. */
async function queue(count: number) {
  const now = Date.now();
  const rows = Array.from({ length: count }, (_, i) => ({
    id: newWebhookId(),
    receiver: "newsletter",
    payload: JSON.stringify({ email: `reader${i}@example.com` }),
    state: "pending" as const,
    created_at: now + i,
    next_attempt_at: now,
  }));
  await insertRows(await database(readEnv()), rows);
  return rows.map((row) => row.id);
}

describe("a third kind, defined by a test alone", () => {
  beforeEach(async () => {
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "1,3600");
    for (const level of ["info", "warn", "error"] as const) vi.spyOn(console, level).mockImplementation(() => {});
    const { db } = await database(readEnv());
    for (const table of ["outbox", "outbox_pace", "receivers", "alert_states"] as const)
      await db.deleteFrom(table).execute();
  });

  it("is retried on the schedule, paused after failures in a row, counted by health, and probed back", async () => {
    const store = await database(readEnv());
    const env = readEnv();
    const ids = await queue(PAUSE_AFTER_FAILURES + 1);
    receiver.outage(503);
    const failed = await sendDue(store, env, sending, { concurrency: 1, budgetMs: 10_000 });
    expect(failed).toMatchObject({ pending: PAUSE_AFTER_FAILURES, delivered: 0, paused: ["newsletter"] });
    const rows = await rowsOf(store, ids);
    const tried = rows.filter((row) => row.attempts === 1);
    expect(tried).toHaveLength(PAUSE_AFTER_FAILURES);
    for (const row of tried) {
      expect(row).toMatchObject({ state: "pending", rounds: 1, last_failure: "status 503", claimed_by: null });
      expect(row.next_attempt_at).toBeGreaterThan(Date.now() + 3_000_000);
    }
    expect((await checkHealth(env, { figures: true })).forms?.newsletter).toMatchObject({ pending: 4, dead: 0 });

    receiver.outage(undefined);
    expect(await probeReceiver(store, env, sending, "newsletter")).toStrictEqual({
      state: "delivered",
      answered: true,
    });
    // The probe's answer made every waiting row due now: the next pass delivers them.
    expect(await sendDue(store, env, sending, { concurrency: 2, budgetMs: 10_000 })).toMatchObject({
      delivered: PAUSE_AFTER_FAILURES,
      paused: [],
    });
    expect((await rowsOf(store, ids)).map((row) => row.state)).toStrictEqual(ids.map(() => "delivered"));
    expect(receiver.received.filter((request) => request.path === "/hooks/newsletter")).toHaveLength(
      PAUSE_AFTER_FAILURES + 1 + PAUSE_AFTER_FAILURES,
    );
  });

  it("is probed with a row a failure put back, not one never tried", async () => {
    const store = await database(readEnv());
    const [failed] = await queue(1);
    receiver.outage(503);
    expect(await sendDue(store, readEnv(), sending, { concurrency: 1, budgetMs: 10_000 })).toMatchObject({
      pending: 1,
    });
    // Due now and never tried: a pass would send it first, a probe must not.
    await queue(1);
    receiver.outage(undefined);
    const before = receiver.received.length;
    expect(await probeReceiver(store, readEnv(), sending, "newsletter")).toMatchObject({ state: "delivered" });
    expect(receiver.received.slice(before).map((request) => request.headers["webhook-id"])).toStrictEqual([failed]);
  });

  it("is given up on once its schedule is spent, and only then", async () => {
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "1");
    const store = await database(readEnv());
    const [id] = await queue(1);
    receiver.outage(503);
    expect(await sendDue(store, readEnv(), sending, { concurrency: 1, budgetMs: 10_000 })).toMatchObject({ dead: 1 });
    expect((await rowsOf(store, [id!]))[0]).toMatchObject({ state: "dead", attempts: 1, last_failure: "status 503" });
    receiver.outage(undefined);
  });

  it("is probed by the schedule's probe when failing, once a REDELIVERY_PROBE_SECONDS, beside another kind's receiver", async () => {
    vi.stubEnv("REDELIVERY_PROBE_SECONDS", "60");
    const store = await database(readEnv());
    await queue(1);
    receiver.outage(503);
    await sendDue(store, readEnv(), sending, { concurrency: 1, budgetMs: 10_000 });
    await alertsSettled();
    for (const form of ["newsletter", "contact"]) await markFailing(store, form, Date.now());
    await store.db
      .updateTable("receivers")
      .set({ failing_since: Date.now() - 61_000 })
      .execute();
    const before = receiver.received.length;
    expect(await probeFailing(store, readEnv(), sending)).toStrictEqual([{ form: "newsletter", state: "pending" }]);
    expect(vi.mocked(console.warn).mock.calls.map(([line]) => JSON.parse(String(line)))).toContainEqual(
      expect.objectContaining({ event: "receiver_probed", form: "newsletter", outcome: "pending" }),
    );
    // Probed this minute (here or by another instance): not again; contact is not its kind's to probe.
    expect(await probeFailing(store, readEnv(), sending)).toStrictEqual([]);
    expect(receiver.received.length).toBe(before + 1);
    const probedAt = await store.db.selectFrom("receivers").select(["form", "probed_at"]).orderBy("form").execute();
    expect(probedAt.map((row) => [row.form, row.probed_at !== null])).toStrictEqual([
      ["contact", false],
      ["newsletter", true],
    ]);
    receiver.outage(undefined);
  });

  it("is sent within its budget: past the minute's ceiling a row waits, and the pass sends it when the minute ends", async () => {
    const store = await database(readEnv());
    const budgeted = { ...sending, kind: { ...newsletter, budget: () => ({ perMinute: 2, perDay: 100 }) } };
    const ids = await queue(3);
    const now = Date.now();
    // The minute's window closes 2.1 s from now: the first pass does not wait that long; the second does.
    await store.db
      .insertInto("outbox_pace")
      .values({ receiver: "newsletter", minute_start: now - 57_900, minute_count: 0, day_start: now, day_count: 0 })
      .execute();
    expect(await sendDue(store, readEnv(), budgeted, { concurrency: 2, budgetMs: 1_000 })).toMatchObject({
      delivered: 2,
      pending: 0,
    });
    const [waiting] = (await rowsOf(store, ids)).filter((row) => row.state === "pending");
    expect(waiting).toMatchObject({ id: ids[2], attempts: 0 });
    expect(waiting!.next_attempt_at).toBe(now + 2_100);
    // A row due now meets the full minute: within its budget, the pass waits for the window and sends both, in order.
    const [later] = await queue(1);
    expect(await sendDue(store, readEnv(), budgeted, { concurrency: 2, budgetMs: 10_000 })).toMatchObject({
      delivered: 2,
    });
    expect(Date.now()).toBeGreaterThanOrEqual(now + 2_100);
    expect((await rowsOf(store, [...ids, later!])).map((row) => row.state)).toStrictEqual(Array(4).fill("delivered"));
    const order = receiver.received.slice(-2).map((request) => request.headers["webhook-id"]);
    expect(order).toStrictEqual([ids[2], later]);
  });

  it("spends no budget on a redelivery: only a row's first attempt counts", async () => {
    const store = await database(readEnv());
    const budgeted = { ...sending, kind: { ...newsletter, budget: () => ({ perMinute: 1, perDay: 1 }) } };
    await queue(2);
    receiver.outage(503);
    expect(await sendDue(store, readEnv(), budgeted, { concurrency: 1, budgetMs: 1_000 })).toMatchObject({
      pending: 1,
    });
    receiver.outage(undefined);
    await store.db.updateTable("outbox").set({ next_attempt_at: Date.now() }).where("attempts", ">", 0).execute();
    expect(await sendDue(store, readEnv(), budgeted, { concurrency: 1, budgetMs: 1_000 })).toMatchObject({
      delivered: 1,
    });
    const [pace] = await store.db.selectFrom("outbox_pace").selectAll().execute();
    expect(pace).toMatchObject({ minute_count: 1, day_count: 1 });
  });

  it("is sent all the same when the budget cannot be read: the store's failure is logged, the row is not held back", async () => {
    const store = await database(readEnv());
    const budgeted = { ...sending, kind: { ...newsletter, budget: () => ({ perMinute: 1, perDay: 1 }) } };
    const [id] = await queue(1);
    await sql`alter table outbox_pace rename to outbox_pace_away`.execute(store.db);
    try {
      expect(await sendDue(store, readEnv(), budgeted, { concurrency: 1, budgetMs: 1_000 })).toMatchObject({
        delivered: 1,
      });
    } finally {
      await sql`alter table outbox_pace_away rename to outbox_pace`.execute(store.db);
    }
    expect((await rowsOf(store, [id!]))[0]).toMatchObject({ state: "delivered" });
    const errors = vi.mocked(console.error).mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(errors).toContainEqual(expect.objectContaining({ event: "lead_store_failed", form: "newsletter" }));
  });
});
