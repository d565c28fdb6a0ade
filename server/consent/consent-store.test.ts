import { describe, expect, it } from "vitest";
import type { Store } from "@/server/db/connect";
import { inTransaction } from "@/server/db/connect";
import type { LeadRow } from "@/server/forms/leads";
import { claimNext, insertLead, leadById, settle, type Due, newClaim } from "@/server/outbox/outbox-store";
import { setupBothEngines } from "@/tests/support/both-engines";
import { waitlistLead } from "@/tests/support/waitlist-lead";
import {
  consentRecords,
  consentStandings,
  consentStates,
  forgetConsentsOf,
  forgetOldConsents,
  recordConsent,
  type ConsentEvidence,
} from "./consent-store";
import { disclosureOf } from "./disclosure";
import { leadsOfNumber, renewConsent, revokeConsent } from "@/server/consent/consent-changes";

const text = disclosureOf("I agree to receive recurring automated texts. Reply STOP to cancel.");

const lead = (phone: string, overrides: Partial<LeadRow> = {}) => waitlistLead(phone, overrides);

const evidence = (phone: string, extra: Partial<ConsentEvidence> = {}): ConsentEvidence => ({
  phone,
  ip: "203.0.113.5",
  userAgent: "Mozilla/5.0",
  pageUrl: "https://sous.example/signup",
  javascript: false,
  disclosure: text,
  shownVersion: text.version,
  ...extra,
});

const open = setupBothEngines();

/** A lead kept with its consent, as a visitor's sign-up keeps them. */
async function signUp(store: Store, phone: string, at = Date.now(), overrides: Partial<LeadRow> = {}) {
  const row = lead(phone, overrides);
  await inTransaction(store, async (db) => {
    await insertLead(db, row, newClaim(0));
    await recordConsent(db, { evidence: evidence(phone), leadId: row.id, at });
  });
  return row;
}

describe.each(["sqlite", "postgres"] as const)("consent records on %s", (engine) => {
  it("date a number's standing from its first record, whatever came after, and its revocation from the last", async () => {
    const store = await open(engine);
    const phone = `+1555${engine === "sqlite" ? 1 : 2}000041`;
    // Delivered leads: nothing here is for the other tests' claims to take.
    const delivered = { state: "delivered" } as const;
    await signUp(store, phone, 5_000, delivered);
    expect((await leadsOfNumber(store, phone)).revokedAt).toBe(-1);
    await signUp(store, phone, 6_000, delivered);
    await revokeConsent(store, { phone, channel: "email", source: "operator", at: 7_000 });
    await revokeConsent(store, { phone, channel: "sms", source: "workflow", at: 9_000 });
    await signUp(store, phone, 10_000, delivered);
    expect((await leadsOfNumber(store, phone)).revokedAt).toBe(9_000);
    expect((await consentStandings(store, [phone])).get(phone)).toMatchObject({ state: "in force", firstAt: 5_000 });
  });

  it("store each text once, and show a number's records and revocations oldest first with the text shown", async () => {
    const store = await open(engine);
    const phone = `+1555${engine === "sqlite" ? 1 : 2}000001`;
    await signUp(store, phone, 5_000);
    await signUp(store, phone, 6_000);
    await revokeConsent(store, { phone, channel: "email", source: "operator", at: 7_000 });

    const history = await consentRecords(store, { phone });
    expect(history.consents.map((record) => [record.consented_at, record.disclosure_text])).toStrictEqual([
      [5_000, text.text],
      [6_000, text.text],
    ]);
    expect(history.revocations).toStrictEqual([
      expect.objectContaining({ phone, revoked_at: 7_000, channel: "email", source: "operator", message_id: null }),
    ]);
    expect(
      await store.db.selectFrom("disclosures").selectAll().where("version", "=", text.version).execute(),
    ).toHaveLength(1);
    expect((await consentRecords(store, { phone: "+15559999999" })).consents).toStrictEqual([]);
  });

  it("stop a revoked number's open leads, and only those: a pass never sends them", async () => {
    const store = await open(engine);
    const phone = `+1555${engine === "sqlite" ? 1 : 2}000002`;
    const other = `+1555${engine === "sqlite" ? 1 : 2}000003`;
    const pending = await signUp(store, phone);
    const held = await signUp(store, phone, Date.now(), { state: "held" });
    const dead = await signUp(store, phone, Date.now(), { state: "dead" });
    const delivered = await signUp(store, phone, Date.now(), {
      state: "delivered",
      dedupe_key: null,
      delivered_at: 3_000,
    });
    const someoneElse = await signUp(store, other);
    // Released, as after the visitor's failed attempt.
    for (const row of [pending, held, dead, someoneElse])
      await store.db
        .updateTable("outbox")
        .set({ claimed_by: null, claimed_until: null })
        .where("id", "=", row.id)
        .execute();

    const result = await revokeConsent(store, {
      phone,
      channel: "sms",
      source: "workflow",
      messageId: `msg_${engine}_2`,
    });
    expect(result).toMatchObject({ recorded: true, leadsStopped: 3 });
    for (const row of [pending, held, dead]) {
      expect(await leadById(store, row.id)).toMatchObject({
        state: "revoked",
        payload: null,
        dedupe_key: null,
        last_failure: "consent revoked",
      });
    }
    expect(await leadById(store, delivered.id)).toMatchObject({ state: "delivered" });
    expect(await leadById(store, someoneElse.id)).toMatchObject({ state: "pending" });

    const everything: Due = { wanted: [{ receivers: ["waitlist"], states: ["pending", "held", "dead"] }] };
    const claimed = await claimNext(store, everything, newClaim(60_000));
    expect(claimed?.id).toBe(someoneElse.id);
    expect(await claimNext(store, everything, newClaim(60_000))).toBeUndefined();

    // A new sign-up from the number is a new lead with a new consent.
    const again = await signUp(store, phone);
    expect(await leadById(store, again.id)).toMatchObject({ state: "pending" });
  });

  it("find a number's leads by the key its records hold, where a search of the values would mislead", async () => {
    const store = await open(engine);
    const phone = `+1555${engine === "sqlite" ? 1 : 2}000012`;
    const other = `+1555${engine === "sqlite" ? 1 : 2}000013`;
    // The number's own lead, its values written with a space after each colon (as Postgres' jsonb prints them):
    // a text search for "phone":"<number>" does not find it.
    const spaced = await signUp(store, phone, Date.now(), {
      payload: `{"name": "Ada", "phone": "${phone}"}`,
      claimed_by: null,
      claimed_until: null,
    });
    // Someone else's lead that carries the number too, under a "phone" key of its own: a text search finds it.
    const carries = await signUp(store, other, Date.now(), {
      payload: JSON.stringify({ name: "Bea", phone: other, referredBy: { phone } }),
      claimed_by: null,
      claimed_until: null,
    });

    const result = await revokeConsent(store, { phone, channel: "sms", source: "workflow" });
    expect(result).toMatchObject({ recorded: true, leadsStopped: 1 });
    expect(await leadById(store, spaced.id)).toMatchObject({ state: "revoked", payload: null });
    expect(await leadById(store, carries.id)).toMatchObject({ state: "pending", payload: carries.payload });
  });

  it("let a sender that held a lead when it was revoked settle nothing but a delivery", async () => {
    const store = await open(engine);
    const phone = `+1555${engine === "sqlite" ? 1 : 2}000004`;
    const row = await signUp(store, phone);
    const claim = newClaim(60_000);
    await store.db
      .updateTable("outbox")
      .set({ claimed_by: claim.token, claimed_until: claim.until })
      .where("id", "=", row.id)
      .execute();
    await revokeConsent(store, { phone, channel: "sms", source: "workflow" });
    await settle(store, {
      row,
      answered: ["delivered"],
      claim,
      change: { state: "pending", next_attempt_at: 9_000, last_failure: "status 503" },
      attempts: [],
    });
    expect(await leadById(store, row.id)).toMatchObject({ state: "revoked" });
  });

  it("tell each number's consent state: in force while its last consent is later than its last revocation", async () => {
    const store = await open(engine);
    const number = (n: number) => `+1556${engine === "sqlite" ? 1 : 2}${String(n).padStart(6, "0")}`;
    const revoke = (phone: string, at: number) =>
      revokeConsent(store, { phone, channel: "sms", source: "workflow", at });
    await signUp(store, number(1), 1_000);
    await signUp(store, number(2), 1_000);
    await revoke(number(2), 2_000);
    await signUp(store, number(3), 1_000);
    await revoke(number(3), 2_000);
    await signUp(store, number(3), 3_000);
    await revoke(number(4), 2_000);
    await signUp(store, number(6), 5_000);
    await revoke(number(6), 5_000);
    // Revoked, signed up again, revoked again: the latest revocation counts, not the first.
    await revoke(number(7), 500);
    await signUp(store, number(7), 1_000);
    await revoke(number(7), 2_000);
    // More numbers than one query binds: the 550th has a record.
    await signUp(store, number(550), 1_000);

    const asked = [...Array.from({ length: 600 }, (_, i) => number(i + 1)), number(1)];
    const states = await consentStates(store, asked);
    expect(states.size).toBe(600);
    expect([1, 2, 3, 4, 5, 6, 7, 550, 551].map((n) => states.get(number(n)))).toEqual([
      "in force",
      "revoked",
      "in force",
      "revoked",
      "none",
      "revoked",
      "revoked",
      "in force",
      "none",
    ]);
    expect(await consentStates(store, [])).toEqual(new Map());
  });

  it("record a replayed revocation once", async () => {
    const store = await open(engine);
    const phone = `+1555${engine === "sqlite" ? 1 : 2}000005`;
    const call = { phone, channel: "sms" as const, source: "workflow" as const, messageId: `msg_replayed_${engine}` };
    expect(await revokeConsent(store, call)).toMatchObject({ recorded: true });
    expect(await revokeConsent(store, call)).toMatchObject({ recorded: false, leadsStopped: 0 });
    expect((await consentRecords(store, { phone })).revocations).toHaveLength(1);
  });

  it("are exported since a day, and forgotten after their retention, leaving the texts", async () => {
    const store = await open(engine);
    const phone = `+1555${engine === "sqlite" ? 1 : 2}000006`;
    const day = 86_400_000;
    await signUp(store, phone, 10 * day);
    await signUp(store, phone, 20 * day);
    await revokeConsent(store, { phone, channel: "other", source: "operator", at: 30 * day });

    const since = await consentRecords(store, { since: 15 * day });
    expect(
      since.consents.filter((record) => record.phone === phone).map((record) => record.consented_at),
    ).toStrictEqual([20 * day]);
    expect(since.revocations.filter((revocation) => revocation.phone === phone)).toHaveLength(1);

    const forgotten = await forgetOldConsents(store, 25 * day);
    expect(forgotten.consents).toBeGreaterThanOrEqual(2);
    const left = await consentRecords(store, { phone });
    expect(left.consents).toStrictEqual([]);
    expect(left.revocations).toHaveLength(1);
    expect(
      await store.db.selectFrom("disclosures").select("version").where("version", "=", text.version).execute(),
    ).toHaveLength(1);
  });

  it("outlive their lead: dropping or delivering it leaves the record", async () => {
    const store = await open(engine);
    const phone = `+1555${engine === "sqlite" ? 1 : 2}000007`;
    const row = await signUp(store, phone);
    await store.db.deleteFrom("outbox").where("id", "=", row.id).execute();
    expect((await consentRecords(store, { phone })).consents).toStrictEqual([
      expect.objectContaining({ lead_id: row.id }),
    ]);
  });

  it("go with a sign-up dropped past the budget: its number leaves the list unless another sign-up keeps it", async () => {
    const store = await open(engine);
    const [alone, twice] = [`+1555${engine === "sqlite" ? 5 : 6}000008`, `+1555${engine === "sqlite" ? 5 : 6}000009`];
    const dropped = await signUp(store, alone);
    const first = await signUp(store, twice);
    const second = await signUp(store, twice);
    await forgetConsentsOf(store, []);
    await forgetConsentsOf(store, [dropped.id, second.id]);
    expect((await consentRecords(store, { phone: alone })).consents).toStrictEqual([]);
    expect((await consentRecords(store, { phone: twice })).consents).toStrictEqual([
      expect.objectContaining({ lead_id: first.id }),
    ]);
    expect([...(await consentStandings(store, [alone, twice])).keys()]).toStrictEqual([twice]);
  });

  it("record one event for one message id sent to both routes at once, from two instances", async () => {
    // On Postgres two connections, two servers behind one database, each handed the same workflow message; on SQLite
    // (one machine, one server: docs/operating.md) the calls at once on one.
    const first = await open(engine);
    const second = engine === "postgres" ? await open(engine) : first;
    const phone = `+1555${engine === "sqlite" ? 3 : 4}777001`;
    await signUp(first, phone, Date.now() - 60_000);
    for (let round = 0; round < 5; round += 1) {
      const messageId = `msg_both_routes_${engine}_${round}`;
      const stop = { phone, channel: "sms" as const, source: "workflow" as const, messageId };
      const outcomes = await Promise.all([
        revokeConsent(first, stop),
        revokeConsent(second, stop),
        renewConsent(first, { phone, messageId }),
        renewConsent(second, { phone, messageId }),
      ]);
      expect(
        outcomes.filter((outcome) => outcome.recorded),
        messageId,
      ).toHaveLength(1);
    }
    // Each message claimed once, as the event it recorded, at its time.
    const claimed = await first.db
      .selectFrom("consent_messages")
      .selectAll()
      .where("message_id", "like", `msg_both_routes_${engine}_%`)
      .execute();
    const recorded = await consentRecords(first, { phone });
    const kindOf = new Map([
      ...recorded.revocations.map((row) => [row.message_id, "revoke"] as const),
      ...recorded.renewals.map((row) => [row.message_id, "renew"] as const),
    ]);
    expect(claimed).toHaveLength(5);
    for (const { message_id, kind } of claimed) expect(kind, message_id).toBe(kindOf.get(message_id));
    const renewedAt = 1_796_000_000_000;
    await renewConsent(first, { phone, messageId: `msg_start_${engine}`, at: renewedAt });
    expect(
      await first.db
        .selectFrom("consent_messages")
        .selectAll()
        .where("message_id", "=", `msg_start_${engine}`)
        .execute(),
    ).toEqual([{ message_id: `msg_start_${engine}`, kind: "renew", recorded_at: renewedAt }]);
    const { revocations, renewals } = await consentRecords(first, { phone });
    expect([...revocations, ...renewals].map((row) => row.message_id).sort()).toStrictEqual([
      ...[0, 1, 2, 3, 4].map((round) => `msg_both_routes_${engine}_${round}`),
      `msg_start_${engine}`,
    ]);
    expect(
      renewals.filter((row) => row.message_id === `msg_start_${engine}`).map((row) => Number(row.renewed_at)),
    ).toStrictEqual([renewedAt]);
  });
});
