import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { recordConsent } from "@/server/consent/consent-store";
import { disclosureOf } from "@/server/consent/disclosure";
import { queueWave } from "@/server/invitations/waves";
import { newWebhookId, attemptsOf } from "@/server/outbox/outbox-store";
import { startInviteReceiver } from "@/tests/support/invite-receiver";
import { numberUnder, openPrefix, specCountries } from "@/tests/support/open-zone";
import { makeDue, setupLeadSending } from "@/tests/support/lead-sending";
import { finishSchedule, runTasks, scheduleTick, startSchedule, stopSchedule, taskNames } from "./scheduler";
import { waitlistLead } from "@/tests/support/waitlist-lead";
import { failingReceivers } from "@/server/outbox/alert-store";
import { alertsSettled } from "@/server/outbox/alerts";
import { activityPage, insertActivity, type Activity } from "@/server/operators/activity-store";

const { receiver, store, payload, send, row, logged } = setupLeadSending();

/** A tick of every task, as the timer runs it. */
const everyTask = (options: { budgetMs?: number } = {}) => runTasks(taskNames, { via: "timer", ...options });

// Retention runs at most every ten minutes per process: each test that wants it moves the clock on past that.
let clock = Date.now();
/** Sets the clock to `at` (never back). */
function clockAt(at: number) {
  clock = Math.max(clock, at);
  vi.setSystemTime(clock);
  return clock;
}
/** Sets the clock eleven minutes past the last time the tests set: retention is due. */
const retentionDue = () => clockAt(Math.max(clock, Date.now()) + 11 * 60_000);

/** A lead due now whose receiver never answers: each attempt waits `timeoutMs` (WEBHOOK_ATTEMPT_TIMEOUT_MS). */
async function hangingLead(timeoutMs: number) {
  vi.stubEnv("WEBHOOK_ATTEMPT_TIMEOUT_MS", String(timeoutMs));
  const body = payload("[hang]");
  await (
    await store()
  ).db
    .insertInto("outbox")
    .values(waitlistLead(body.phone, { payload: JSON.stringify(body), dedupe_key: null, next_attempt_at: 0 }))
    .execute();
  return body;
}

/** A body the visitor sent (and that failed, with "[fail=3]"), made due now. */
async function sentAndDue(body: Record<string, unknown>) {
  const delivery = await send(body);
  await makeDue(delivery.webhookId);
  return delivery;
}

describe("retention, with a scheduled pass", () => {
  it("forgets the values of leads delivered more than LEAD_RETENTION_DAYS ago, keeping their delivery log", async () => {
    const body = payload();
    const delivery = await send(body);
    const db = await store();
    await db.db
      .updateTable("outbox")
      .set({ delivered_at: Date.now() - 31 * 86_400_000 })
      .where("id", "=", delivery.webhookId)
      .execute();
    const recentBody = payload();
    const recent = await send(recentBody);
    retentionDue();
    await everyTask();
    expect(await row(delivery.webhookId)).toMatchObject({ state: "delivered", payload: null });
    expect(await row(recent.webhookId)).toMatchObject({ state: "delivered", payload: JSON.stringify(recentBody) });
    expect(await attemptsOf(db, delivery.webhookId)).toHaveLength(1);
    expect(logged("lead_payloads_forgotten")).toStrictEqual([
      expect.objectContaining({ level: "info", leads: 1, retentionDays: 30 }),
    ]);
  });
});

describe("retention of sign-ups that wait for a START", () => {
  it("lets go, unsent, a sign-up that waited more than LEAD_RETENTION_DAYS; a younger one keeps waiting", async () => {
    const db = await store();
    const [old, young] = [waitlistLead("+15558800001"), waitlistLead("+15558800002")];
    await db.db
      .insertInto("outbox")
      .values([
        { ...old, state: "awaiting_start", created_at: Date.now() - 31 * 86_400_000 },
        { ...young, state: "awaiting_start", created_at: Date.now() - 29 * 86_400_000 },
      ])
      .execute();
    retentionDue();
    await everyTask();
    expect(await row(old.id)).toMatchObject({
      state: "revoked",
      payload: null,
      dedupe_key: null,
      last_failure: "no START within retention",
    });
    expect(await row(young.id)).toMatchObject({ state: "awaiting_start", payload: young.payload });
    expect(logged("unrenewed_signups_forgotten")).toStrictEqual([
      expect.objectContaining({ level: "info", leads: 1, retentionDays: 30 }),
    ]);
    // Nothing old left: no line, and the young one still waits.
    retentionDue();
    await everyTask();
    expect(logged("unrenewed_signups_forgotten")).toHaveLength(1);
    expect(await row(young.id)).toMatchObject({ state: "awaiting_start" });
  });
});

describe("retention, with a pass", () => {
  it("runs at most every ten minutes per process, and says nothing when nothing was old enough", async () => {
    const delivery = await send(payload());
    // Retention ran: nothing was old enough.
    const ran = retentionDue();
    await everyTask();
    const { db } = await store();
    await db
      .updateTable("outbox")
      .set({ delivered_at: Date.now() - 31 * 86_400_000 })
      .where("id", "=", delivery.webhookId)
      .execute();
    // Nine minutes since that run: not yet.
    clockAt(ran + 9 * 60_000);
    await everyTask();
    expect((await row(delivery.webhookId))?.payload).not.toBeNull();
    // Ten: it runs, and forgets.
    clockAt(ran + 10 * 60_000);
    await everyTask();
    expect((await row(delivery.webhookId))?.payload).toBeNull();
    expect(logged("lead_payloads_forgotten")).toHaveLength(1);
    // Run again with nothing old left: no line.
    retentionDue();
    await everyTask();
    expect(logged("lead_payloads_forgotten")).toHaveLength(1);
    expect(logged("consents_forgotten")).toStrictEqual([]);
  });
});

describe("consent retention, with a pass", () => {
  it("forgets consent records and revocations older than CONSENT_RETENTION_DAYS, keeps the rest, and says how many", async () => {
    const { db } = await store();
    const day = 86_400_000;
    const now = Date.now();
    await db
      .insertInto("disclosures")
      .values({ version: "v-retention", text: "I agree.", first_recorded_at: 0 })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
    const consent = (id: string, at: number) => ({
      id,
      phone: "+15551234567",
      consented_at: at,
      ip: null,
      user_agent: null,
      page_url: null,
      javascript: 1,
      lead_id: `msg_${id}`,
      disclosure_version: "v-retention",
    });
    await db
      .insertInto("consents")
      .values([consent("c-old", now - 1_462 * day), consent("c-kept", now - 1_460 * day)])
      .execute();
    await db
      .insertInto("consent_revocations")
      .values({
        id: "r-old",
        phone: "+15551234567",
        revoked_at: now - 1_500 * day,
        channel: "sms",
        source: "test",
        message_id: null,
      })
      .execute();
    retentionDue();
    await everyTask();

    expect(
      (await db.selectFrom("consents").select("id").where("id", "in", ["c-old", "c-kept"]).execute()).map(
        (row) => row.id,
      ),
    ).toStrictEqual(["c-kept"]);
    expect(await db.selectFrom("consent_revocations").select("id").where("id", "=", "r-old").execute()).toStrictEqual(
      [],
    );
    expect(logged("consents_forgotten")).toStrictEqual([
      expect.objectContaining({ level: "info", consents: 1, revocations: 1, retentionDays: 1461 }),
    ]);

    // Only a consent record old enough, no revocation: still said.
    await db
      .insertInto("consents")
      .values(consent("c-old-2", now - 1_462 * day))
      .execute();
    retentionDue();
    await everyTask();
    expect(logged("consents_forgotten").at(-1)).toMatchObject({ consents: 1, revocations: 0 });
  });
});

describe("activity retention, with a pass", () => {
  it("forgets the console's activity lines older than AUDIT_RETENTION_DAYS, keeps the newer, and says how many", async () => {
    const now = retentionDue();
    const db = await store();
    const day = 86_400_000;
    const line: Activity = {
      actor: "owner@sous.example",
      via: "console",
      action: "export",
      subject: "waitlist",
      rows: 1,
    };
    for (const age of [401, 399]) {
      vi.setSystemTime(now - age * day);
      await insertActivity(db, line);
    }
    vi.setSystemTime(now);
    await everyTask();
    expect((await activityPage(db, { limit: 10 })).map((row) => row.at)).toContain(now - 399 * day);
    expect((await activityPage(db, { limit: 10 })).map((row) => row.at)).not.toContain(now - 401 * day);
    expect(logged("activity_forgotten")).toStrictEqual([
      expect.objectContaining({ level: "info", lines: 1, retentionDays: 400 }),
    ]);
  });
});

describe("a scheduled pass", () => {
  it("makes the alerts hear what it settles, whichever entry runs it", async () => {
    const body = payload("[status=503]");
    await sentAndDue(body);
    // What the visitor's failure told is forgotten: only the pass can tell it again.
    await (await store()).db.deleteFrom("receivers").execute();
    expect(await failingReceivers(await store())).toStrictEqual([]);
    expect((await everyTask()).leads).toMatchObject({ pending: 1 });
    await alertsSettled();
    expect((await failingReceivers(await store())).map(({ form }) => form)).toStrictEqual(["waitlist"]);
  });

  it("counts the time retention took against each sending task's budget", async () => {
    const body = payload("[fail=3]");
    await sentAndDue(body);
    // Retention took the whole budget and more (the clock read when the tick began, when retention began, after
    // it): the lead task starts no attempt, and nor does the invitations'.
    vi.spyOn(performance, "now").mockReturnValueOnce(0).mockReturnValueOnce(0).mockReturnValueOnce(1_000);
    const spent = await everyTask({ budgetMs: 500 });
    expect(spent.leads).toMatchObject({ budgetSpent: true, delivered: 0 });
    expect(receiver.withName(body.name)).toHaveLength(3);
    // The same tick with the budget left: the lead goes out.
    vi.spyOn(performance, "now").mockReturnValueOnce(0).mockReturnValueOnce(0).mockReturnValueOnce(0);
    expect((await everyTask({ budgetMs: 5_000 })).leads).toMatchObject({ delivered: 1 });
  });
});

describe("the redelivery timer", () => {
  afterEach(() => {
    stopSchedule();
    vi.useRealTimers();
  });

  it("does not keep the process alive by itself, where a plain interval would", () => {
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
    const before = timers();
    const plain = setInterval(() => {}, 60_000);
    expect(timers()).toBe(before + 1);
    clearInterval(plain);
    startSchedule();
    expect(timers()).toBe(before);
  });

  it("waits, when the server stops, for the pass under way: its attempt answered and recorded; then starts none", async () => {
    const body = payload("[fail=3]");
    const lead = await sentAndDue(body);
    receiver.slow(600);
    const tick = scheduleTick();
    // The pass's attempt is at the receiver, which answers in 600 ms.
    await vi.waitFor(() => expect(receiver.withName(body.name)).toHaveLength(4), { timeout: 5_000 });
    let finished = false;
    const finishing = finishSchedule().then(() => (finished = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(finished).toBe(false);
    await finishing;
    // Resolved only once the answer was recorded.
    expect(await row(lead.webhookId)).toMatchObject({ state: "delivered" });
    expect(await tick).toBe(true);
    // Stopping: no pass starts after it.
    expect(await scheduleTick()).toBe(false);
    receiver.slow(undefined);
    // A server that starts again runs passes again (and the next test finds the timer as a new server would).
    startSchedule();
    stopSchedule();
    expect(await scheduleTick()).toBe(true);
  });

  it("runs a tick every REDELIVERY_POLL_MS, once however often it is started", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    vi.stubEnv("REDELIVERY_POLL_MS", "100");
    const body = payload("[fail=3]");
    const first = await sentAndDue(body);
    startSchedule();
    startSchedule();
    expect(vi.getTimerCount()).toBe(1);
    // Not before its interval; after it, the tick's pass delivers.
    vi.advanceTimersByTime(99);
    expect(receiver.withName(body.name)).toHaveLength(3);
    vi.advanceTimersByTime(1);
    await vi.waitFor(async () => expect(await row(first.webhookId)).toMatchObject({ state: "delivered" }), {
      timeout: 5_000,
    });
    stopSchedule();
    expect(vi.getTimerCount()).toBe(0);
    // The interval's pass may still be finishing (its receivers' review): the next test's tick must not find it running.
    while (!(await scheduleTick())) await new Promise((resolve) => setTimeout(resolve, 20));
  });

  it.each([
    ["delivered", "", () => {}],
    ["pending", "[status=503]", () => {}],
    ["dead", "[status=503]", () => vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "1")],
    ["held", "", () => vi.stubEnv("WAITLIST_WEBHOOK_URL", "")],
    ["unreadable", "", () => {}],
  ] as const)("logs a tick whose pass only left a lead %s", async (outcome, directive, setUp) => {
    const body = payload(directive);
    const lead = waitlistLead(body.phone, {
      payload: outcome === "unreadable" ? "{" : JSON.stringify(body),
      dedupe_key: null,
      next_attempt_at: 0,
    });
    await (await store()).db.insertInto("outbox").values(lead).execute();
    setUp();
    const began = Date.now();
    expect(await scheduleTick()).toBe(true);
    const [line, ...more] = logged("scheduled_task");
    expect(more).toStrictEqual([]);
    expect(line).toMatchObject({ level: "info", task: "leads", via: "timer", [outcome]: 1 });
    expect(line.durationMs).toBeLessThanOrEqual(Date.now() - began);
    expect(await row(lead.id)).toMatchObject({ state: outcome === "unreadable" ? "dead" : outcome });
  });

  it("sends due leads on its ticks, and logs a tick only when its pass did something", async () => {
    const body = payload("[fail=3]");
    const first = await sentAndDue(body);
    expect(await scheduleTick()).toBe(true);
    expect(await row(first.webhookId)).toMatchObject({ state: "delivered" });
    expect(receiver.withName(body.name)).toHaveLength(4);
    expect(logged("scheduled_task")).toStrictEqual([
      expect.objectContaining({
        task: "leads",
        via: "timer",
        delivered: 1,
        pending: 0,
        durationMs: expect.any(Number),
      }),
    ]);
    // Two more ticks ran every task, with nothing to send: nothing logged.
    expect(await scheduleTick()).toBe(true);
    expect(await scheduleTick()).toBe(true);
    expect(logged("scheduled_task")).toHaveLength(1);
  });

  it("starts no pass while the last one still runs", async () => {
    const body = await hangingLead(300);
    const first = scheduleTick();
    await vi.waitFor(() => expect(receiver.withName(body.name)).toHaveLength(1));
    expect(await scheduleTick()).toBe(false);
    expect(await first).toBe(true);
    expect(receiver.withName(body.name)).toHaveLength(1);
    // Once it ended, the next tick runs.
    expect(await scheduleTick()).toBe(true);
  });

  it("logs a database that fails its passes once per outage, not once a pass", async () => {
    const home = process.env.DATA_DIR!;
    vi.stubEnv("DATA_DIR", `${import.meta.filename}/no-folder-inside-a-file`);
    for (let tick = 0; tick < 3; tick += 1) expect(await scheduleTick()).toBe(true);
    expect(logged("lead_store_failed")).toStrictEqual([
      expect.objectContaining({ event: "lead_store_failed", during: "scheduled_tick" }),
    ]);

    // Answered again, then failing again: the next outage is logged anew.
    vi.stubEnv("DATA_DIR", home);
    expect(await scheduleTick()).toBe(true);
    vi.stubEnv("DATA_DIR", `${import.meta.filename}/no-folder-inside-a-file`);
    expect(await scheduleTick()).toBe(true);
    expect(logged("lead_store_failed")).toHaveLength(2);
  });
});

describe("the launch invitations, in the scheduled pass", () => {
  let invites: Awaited<ReturnType<typeof startInviteReceiver>>;
  beforeAll(async () => {
    invites = await startInviteReceiver();
  });
  afterAll(() => invites.close());
  const disclosure = disclosureOf("I agree to receive recurring automated texts. Reply STOP to cancel.");
  let counter = 0;

  /** A consented number whose hours (9-20) are open at the clock the tests set, queued in a wave of its own. */
  async function queued() {
    counter += 1;
    const phone = numberUnder(openPrefix(5, { from: 9, to: 20 }, Date.now()).prefix, 300 + counter);
    const db = await store();
    await recordConsent(db, {
      evidence: { phone, ip: null, userAgent: null, pageUrl: null, javascript: false, disclosure, shownVersion: null },
      leadId: newWebhookId(),
      at: Date.now() - 1_000,
    });
    await queueWave(db, {
      name: `schedule-${counter}`,
      selection: { phones: [phone] },
      text: () => "Sous: test",
      now: Date.now(),
    });
    return phone;
  }

  beforeEach(() => {
    vi.stubEnv("INVITE_WEBHOOK_URL", invites.url);
    vi.stubEnv("INVITE_URL", "https://sous.example/start");
    vi.stubEnv("INVITE_PER_MINUTE", "6000");
    // The open zone may be Guam's or London's (05:00-13:00 UTC no US zone is open): the waitlist must take them.
    vi.stubEnv("WAITLIST_PHONE_COUNTRIES", specCountries);
  });

  it("sends them in a task of their own, not in the operator's lead retry; the timer logs a tick that only sent invitations", async () => {
    const phone = await queued();
    expect(await runTasks(["leads", "alerts review"], { via: "operator" })).not.toHaveProperty("invitations");
    expect(invites.texted([phone])).toHaveLength(0);
    expect((await everyTask()).invitations).toMatchObject({ texted: 1, budgetSpent: false });
    expect(invites.texted([phone])).toHaveLength(1);

    const next = await queued();
    expect(await scheduleTick()).toBe(true);
    expect(invites.texted([next])).toHaveLength(1);
    // A line for each run that sent one: the tasks run above, then the timer's tick.
    expect(logged("scheduled_task")).toStrictEqual([
      expect.objectContaining({ task: "invitations", via: "timer", texted: 1 }),
      expect.objectContaining({ task: "invitations", via: "timer", texted: 1 }),
    ]);
    // A tick with nothing to send, invitations included: nothing logged.
    expect(await scheduleTick()).toBe(true);
    expect(logged("scheduled_task")).toHaveLength(2);
  });

  it("are not starved by a slow lead pass: with a lead's receiver hanging past the tick's budget, the invitation goes in the same tick", async () => {
    const body = await hangingLead(1_500);
    const phone = await queued();
    const tick = await everyTask({ budgetMs: 1_000 });
    // The lead's attempt hung until its timeout, past the budget: the lead task spent it.
    expect(receiver.withName(body.name)).toHaveLength(1);
    expect(tick.leads).toMatchObject({ pending: 1, budgetSpent: true });
    // Side by side with it, the invitations' task had a budget of its own.
    expect(tick.invitations).toMatchObject({ texted: 1, budgetSpent: false });
    expect(invites.texted([phone])).toHaveLength(1);
  });

  it("forgets invitations as old as the consent records retention removes, and says how many", async () => {
    const phone = await queued();
    const db = await store();
    await db.db
      .updateTable("outbox")
      .set({ created_at: Date.now() - 1_462 * 86_400_000 })
      .where("id", "in", db.db.selectFrom("invitations").select("id").where("phone", "=", phone))
      .execute();
    retentionDue();
    await everyTask();
    expect(await db.db.selectFrom("invitations").selectAll().where("phone", "=", phone).execute()).toStrictEqual([]);
    expect(logged("invitations_forgotten")).toStrictEqual([
      expect.objectContaining({ level: "info", invitations: 1, retentionDays: 1_461 }),
    ]);
  });
});
