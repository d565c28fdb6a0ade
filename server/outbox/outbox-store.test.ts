import { sql } from "kysely";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Store } from "@/server/db/connect";
import { migrations } from "@/server/db/migrations";
import { setupBothEngines } from "@/tests/support/both-engines";
import { waitlistLead } from "@/tests/support/waitlist-lead";
import {
  attemptsOf,
  claimLead,
  dropAwaitingRelease,
  dropLead,
  forgetDeliveredPayloads,
  insertLead,
  leadById,
  listLeads,
  openCounts,
  openLeadByKey,
  settle as settleRow,
  type Due,
  type LeadRow,
  type Wanted,
  newClaim,
  WAITS_FOR_BUDGET,
} from "./outbox-store";
import { takeNext } from "./pass";

const newRow = (overrides: Partial<LeadRow> = {}) => waitlistLead("+15551234567", overrides);

const open = setupBothEngines();

/** What a pass claims next, as the engine takes it: the row due first of what `wanted` asks for. */
async function claimNext(store: Store, wanted: Wanted | Wanted[], due: Omit<Due, "wanted"> = {}) {
  const step = await takeNext(store, {
    due: { ...due, wanted: [wanted].flat() },
    timeoutMs: 60_000,
  });
  return step && "claimed" in step ? step.claimed.row : undefined;
}

const settle = (
  store: Store,
  {
    lead,
    ...rest
  }: Omit<Parameters<typeof settleRow>[1], "row" | "answered"> & { lead: { id: string; attempts: number } },
) => settleRow(store, { ...rest, row: lead, answered: ["delivered"] });

afterEach(() => vi.useRealTimers());

/** Keeps a lead as if its sender had let it go: inserted with a claim that already ran out. */
async function kept(store: Store, overrides: Partial<LeadRow> = {}) {
  const row = newRow(overrides);
  const inserted = await insertLead(store, row, { token: "expired", until: 0 });
  if (!inserted) throw new Error("not inserted");
  return inserted;
}

describe.each(["sqlite", "postgres"] as const)("the outbox on %s", (engine) => {
  let store: Store;
  beforeAll(async () => {
    store = await open(engine);
    await store.db.deleteFrom("outbox").execute();
  });

  it("runs its migrations once: a second server finds them applied", async () => {
    const again = await open(engine);
    const names = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(again.db);
    const committed = [
      "0001-leads",
      "0002-consent",
      "0003-alerts",
      "0004-alert-state",
      "0005-limit-counts",
      "0006-consent-renewal",
      "0007-invitations",
      "0008-receiver-answers",
      "0009-invitation-reach",
      "0010-console",
      "0011-console-reads",
      "0012-limit-keys",
      "0013-consent-messages",
      "0014-start-needs-a-record",
      "0015-session-passkeys",
      "0016-search-by-trigrams",
      "0017-session-browser",
      "0018-one-outbox",
      "0019-send-budget",
      "0020-invitation-opens",
      "0021-operator-time-zone",
      "0022-lead-sources",
      "0023-welcome-answers",
      "0024-passkey-names",
    ];
    expect(names.rows.map((row) => row.name)).toStrictEqual(committed);
    expect(Object.keys(migrations)).toStrictEqual(committed);
  });

  it("keeps one open lead per set of values: a second insert returns nothing, and the first is found by its key", async () => {
    const first = await kept(store);
    expect(await insertLead(store, newRow({ dedupe_key: first.dedupe_key }), newClaim(1_000))).toBeUndefined();
    expect(await openLeadByKey(store, first.dedupe_key!)).toMatchObject({ id: first.id, payload: first.payload });
  });

  it("gives a claimed lead to no one else until the claim expires", async () => {
    const lead = await kept(store);
    vi.setSystemTime(10_000);
    const mine = newClaim(60_000);
    expect(await claimLead(store, lead.id, mine)).toMatchObject({ id: lead.id, claimed_by: mine.token });
    vi.setSystemTime(20_000);
    expect(await claimLead(store, lead.id, newClaim(60_000))).toBeUndefined();
    // A claim left by a process that died runs out, and is taken over.
    vi.setSystemTime(80_000);
    const later = newClaim(60_000);
    expect(await claimLead(store, lead.id, later)).toMatchObject({ claimed_by: later.token });
  });

  it("claims the lead due first, and only what the selection asks for", async () => {
    await store.db.deleteFrom("outbox").execute();
    const late = await kept(store, { next_attempt_at: 5_000 });
    const early = await kept(store, { next_attempt_at: 3_000 });
    const notDue = await kept(store, { next_attempt_at: 9_000 });
    const held = await kept(store, { state: "held", next_attempt_at: 1_000, receiver: "contact" });
    const dead = await kept(store, { state: "dead", next_attempt_at: 0 });
    vi.setSystemTime(6_000);

    const pending = (by: number): Wanted => ({ receivers: ["waitlist", "contact"], states: ["pending"], by });
    const heldOf = (receivers: string[]): Wanted => ({ receivers, states: ["held"] });

    expect((await claimNext(store, pending(6_000)))?.id).toBe(early.id);
    expect((await claimNext(store, pending(6_000)))?.id).toBe(late.id);
    expect(await claimNext(store, pending(6_000))).toBeUndefined();
    expect(await claimNext(store, heldOf(["waitlist"]))).toBeUndefined();
    expect(await claimNext(store, heldOf([]))).toBeUndefined();
    expect((await claimNext(store, heldOf(["contact"])))?.id).toBe(held.id);
    expect((await claimNext(store, { receivers: ["waitlist"], states: ["dead"] }))?.id).toBe(dead.id);
    expect((await claimNext(store, pending(10_000)))?.id).toBe(notDue.id);
  });

  it("claims only the rows named by their ids, when ids are given: none for none", async () => {
    await store.db.deleteFrom("outbox").execute();
    const first = await kept(store, { next_attempt_at: 1_000 });
    const second = await kept(store, { next_attempt_at: 2_000 });
    const any: Wanted = { receivers: ["waitlist"], states: ["pending"] };
    expect(await claimNext(store, any, { ids: [] })).toBeUndefined();
    expect((await claimNext(store, any, { ids: [second.id] }))?.id).toBe(second.id);
    expect((await claimNext(store, any, { ids: [first.id, second.id] }))?.id).toBe(first.id);
  });

  it("drops only rows waiting for an owner, and says which", async () => {
    await store.db.deleteFrom("outbox").execute();
    const waiting = await kept(store, { state: "awaiting_release" });
    const pending = await kept(store, {});
    expect(await dropAwaitingRelease(store, [])).toStrictEqual([]);
    expect(await dropAwaitingRelease(store, [waiting.id, pending.id, "msg_none"])).toStrictEqual([waiting.id]);
    expect((await listLeads(store)).map(({ id }) => id)).toStrictEqual([pending.id]);
  });

  it("claims one form's lead when the selection names the form (a probe of that form's receiver), however due another's is", async () => {
    await store.db.deleteFrom("outbox").execute();
    const waitlist = await kept(store, { next_attempt_at: 1_000 });
    const contact = await kept(store, { next_attempt_at: 8_000, receiver: "contact" });
    vi.setSystemTime(6_000);
    const probe: Wanted = { receivers: ["contact"], states: ["pending"] };
    expect((await claimNext(store, probe))?.id).toBe(contact.id);
    expect(await claimNext(store, probe)).toBeUndefined();
    // The working twin: the waitlist's lead was there to take, and due first.
    expect((await claimNext(store, { receivers: ["waitlist"], states: ["pending"], by: 6_000 }))?.id).toBe(waitlist.id);
  });

  it("two servers claiming at once never take the same lead", async () => {
    await store.db.deleteFrom("outbox").execute();
    const other = await open(engine);
    const ids = [];
    for (let i = 0; i < 20; i += 1) ids.push((await kept(store, { next_attempt_at: i })).id);
    const claimAll = async (from: Store) => {
      const taken: string[] = [];
      for (;;) {
        const row = await claimNext(from, { receivers: ["waitlist"], states: ["pending"], by: Date.now() });
        if (!row) return taken;
        taken.push(row.id);
      }
    };
    const [a, b, c] = await Promise.all([claimAll(store), claimAll(other), claimAll(other)]);
    expect([...a, ...b, ...c].sort()).toStrictEqual([...ids].sort());
  });

  it("records a delivery and its attempts, frees the values for a new lead, and never changes it back", async () => {
    const lead = await kept(store);
    const claim = newClaim(60_000);
    await claimLead(store, lead.id, claim);
    const attempt = { at: 5_000, status: 200, failure: null, duration_ms: 12, sender: "pass" };
    await settle(store, {
      lead,
      claim,
      change: { state: "delivered", delivered_at: 5_000, dedupe_key: null },
      attempts: [attempt],
    });

    expect(await leadById(store, lead.id)).toMatchObject({
      state: "delivered",
      attempts: 1,
      dedupe_key: null,
      claimed_by: null,
      payload: lead.payload,
    });
    expect(await attemptsOf(store, lead.id)).toStrictEqual([{ outbox_id: lead.id, number: 1, ...attempt }]);
    expect(await claimLead(store, lead.id, newClaim(60_000))).toBeUndefined();
    // The same values again are a new lead.
    const again = newRow({ dedupe_key: lead.dedupe_key });
    expect(await insertLead(store, again, newClaim(1_000))).toMatchObject({
      id: again.id,
      dedupe_key: lead.dedupe_key,
      state: "pending",
    });
    // A stale failure from a sender whose claim ran out changes nothing.
    await settle(store, {
      lead,
      claim: newClaim(1),
      change: { state: "pending", last_failure: "status 503" },
      attempts: [],
    });
    expect(await leadById(store, lead.id)).toMatchObject({ state: "delivered", last_failure: null });
    // Nor does a second delivery of it: delivered once, at its first time.
    await settle(store, {
      lead: { id: lead.id, attempts: 1 },
      claim: newClaim(1),
      change: { state: "delivered", delivered_at: 9_000, dedupe_key: null },
      attempts: [],
    });
    expect(await leadById(store, lead.id)).toMatchObject({ state: "delivered", delivered_at: 5_000, attempts: 1 });
  });

  it("lets only the claim's holder record a failure", async () => {
    const lead = await kept(store);
    const holder = newClaim(60_000);
    await claimLead(store, lead.id, holder);
    const failed = { at: 1, status: 503, failure: "status", duration_ms: 3, sender: "pass" };
    await settle(store, {
      lead,
      claim: newClaim(60_000),
      change: { state: "pending", last_failure: "status 503", next_attempt_at: 99 },
      attempts: [],
    });
    expect(await leadById(store, lead.id)).toMatchObject({ claimed_by: holder.token, last_failure: null });
    await settle(store, {
      lead,
      claim: holder,
      change: { state: "pending", last_failure: "status 503", next_attempt_at: 99 },
      attempts: [failed, failed],
    });
    expect(await leadById(store, lead.id)).toMatchObject({
      claimed_by: null,
      last_failure: "status 503",
      next_attempt_at: 99,
      attempts: 2,
    });
    expect((await attemptsOf(store, lead.id)).map((row) => row.number)).toStrictEqual([1, 2]);
  });

  it("forgets the values of leads delivered before the retention cut-off, and keeps their delivery log", async () => {
    const old = await kept(store);
    const recent = await kept(store);
    const open = await kept(store);
    await settle(store, {
      lead: old,
      claim: newClaim(1),
      change: { state: "delivered", delivered_at: 1_000, dedupe_key: null },
      attempts: [{ at: 1_000, status: 200, failure: null, duration_ms: 1, sender: "visitor" }],
    });
    await settle(store, {
      lead: recent,
      claim: newClaim(1),
      change: { state: "delivered", delivered_at: 9_000, dedupe_key: null },
      attempts: [],
    });

    expect(await forgetDeliveredPayloads(store, 5_000)).toBe(1);
    expect((await leadById(store, old.id))?.payload).toBeNull();
    expect((await leadById(store, recent.id))?.payload).toBe(recent.payload);
    expect((await leadById(store, open.id))?.payload).toBe(open.payload);
    expect(await attemptsOf(store, old.id)).toHaveLength(1);
    expect(await forgetDeliveredPayloads(store, 5_000)).toBe(0);
  });

  it("lists by state and form, and drops an open lead with its delivery log, never a delivered one", async () => {
    await store.db.deleteFrom("outbox").execute();
    const a = await kept(store);
    const b = await kept(store, { state: "dead", receiver: "contact" });
    const attempt = { at: 1, status: 200, failure: null, duration_ms: 1, sender: "visitor" as const };
    await settle(store, {
      lead: a,
      claim: newClaim(1),
      change: { state: "delivered", delivered_at: 1, dedupe_key: null },
      attempts: [attempt],
    });
    await settle(store, {
      lead: b,
      claim: newClaim(1),
      change: { state: "dead" },
      attempts: [{ ...attempt, status: 500 }],
    });
    expect((await listLeads(store, { states: ["dead"] })).map((row) => row.id)).toStrictEqual([b.id]);
    expect((await listLeads(store, { form: "waitlist" })).map((row) => row.id)).toStrictEqual([a.id]);
    expect(await dropLead(store, a.id)).toBe(false);
    expect(await attemptsOf(store, a.id)).toHaveLength(1);
    expect(await dropLead(store, b.id)).toBe(true);
    expect(await dropLead(store, b.id)).toBe(false);
    expect(await attemptsOf(store, b.id)).toStrictEqual([]);
    for (const state of ["pending", "held", "revoked", "awaiting_start"] as const) {
      const lead = await kept(store, { state });
      expect(await dropLead(store, lead.id), state).toBe(state === "pending" || state === "held");
    }
  });

  it("knows seven states, and counts as open pending, held, dead and those for an owner's decision", async () => {
    const { leadStates } = await import("@/server/db/schema");
    expect(leadStates).toStrictEqual([
      "pending",
      "held",
      "dead",
      "delivered",
      "revoked",
      "awaiting_start",
      "awaiting_release",
    ]);
    await store.db.deleteFrom("outbox").execute();
    for (const state of leadStates) await kept(store, { state, created_at: 5_000 });
    const counts = (await openCounts(store)).get("waitlist")!;
    expect([counts.pending, counts.held, counts.dead, counts.decision].map(({ count }) => count)).toStrictEqual([
      1, 1, 1, 1,
    ]);
  });

  it("counts open leads per form and state, all forms or one; of the pending, those waiting for the budget", async () => {
    await store.db.deleteFrom("outbox").execute();
    await kept(store, { created_at: 3_000 });
    await kept(store, { created_at: 2_000, last_failure: WAITS_FOR_BUDGET });
    await kept(store, { created_at: 2_500, last_failure: "status 503" });
    await kept(store, { receiver: "contact", state: "held", created_at: 1_000 });
    await kept(store, { state: "awaiting_release", created_at: 4_000, last_failure: WAITS_FOR_BUDGET });
    const none = { count: 0, oldest: undefined };
    expect(Object.fromEntries(await openCounts(store))).toStrictEqual({
      contact: { pending: none, held: { count: 1, oldest: 1_000 }, dead: none, decision: none, budget: none },
      waitlist: {
        pending: { count: 3, oldest: 2_000 },
        held: none,
        dead: none,
        decision: { count: 1, oldest: 4_000 },
        budget: { count: 1, oldest: undefined },
      },
    });
    expect([...(await openCounts(store, "waitlist")).keys()]).toStrictEqual(["waitlist"]);
  });
});
