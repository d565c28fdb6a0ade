import { forgetConsents } from "@/tests/support/lead-rows";
import { describe, expect, it } from "vitest";
import { setupBothEngines } from "@/tests/support/both-engines";
import { linkUnrecordedLead, plainEvidence } from "@/tests/support/waitlist-lead";
import {
  consentStandings,
  consentStates,
  forgetOldConsents,
  rebuildStandings,
  recordConsent,
  recordRenewal,
  recordRevocation,
  signedUpCounts,
  signedUpPage,
} from "./consent-store";
import { disclosureOf } from "./disclosure";

const engines = setupBothEngines();
const disclosure = disclosureOf("I agree.");
const DAY_MS = 86_400_000;

/** A small generator with a seed, so a failure names the history that broke it. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe.each(["sqlite", "postgres"] as const)("signed-up numbers worked out in SQL on %s", (engine) => {
  it("give every number the standing consentStandings gives it, over 120 random histories", async () => {
    const store = await engines(engine);
    await forgetConsents(store.db);
    const next = random(58);
    const base = Date.parse("2026-06-01T00:00:00Z");
    // Times from a small set, so equal times (a START at the sign-up's very millisecond) come up too.
    const when = () => base + Math.floor(next() * 6) * 1_000;
    for (let i = 0; i < 120; i += 1) {
      const phone = `+1212555${String(1000 + i)}`;
      const events = 1 + Math.floor(next() * 5);
      for (let e = 0; e < events; e += 1) {
        const kind = next();
        if (kind < 0.08) await linkUnrecordedLead(store, { phone, leadId: `lead-${i}-${e}`, at: when() });
        else if (kind < 0.35)
          await recordConsent(store, {
            evidence: plainEvidence(phone, disclosure),
            leadId: `lead-${i}-${e}`,
            at: when(),
            putsInForce: next() < 0.7,
          });
        else if (kind < 0.7) await recordRevocation(store, { phone, channel: "sms", source: "workflow", at: when() });
        else await recordRenewal(store, { phone, messageId: `start-${i}-${e}`, at: when() });
      }
    }
    const expected = await consentStandings(store);
    const signedUp = [...expected].filter(([, standing]) => standing.signupId);
    const { rows, total } = await signedUpPage(store, { filter: {}, offset: 0, limit: 500 });
    // Some of each, so the comparison means something.
    const states = new Set(signedUp.map(([, standing]) => standing.state));
    expect([...states].sort()).toStrictEqual(["in force", "none", "revoked"]);
    expect(signedUp.length).toBeLessThan(expected.size);

    expect(total).toBe(signedUp.length);
    const firstRecord = new Map(
      (await store.db.selectFrom("consents").select(["phone", "consented_at", "id"]).execute())
        .sort((a, b) => Number(a.consented_at) - Number(b.consented_at) || a.id.localeCompare(b.id))
        .reverse()
        .map((row) => [row.phone, { at: Number(row.consented_at), id: row.id }]),
    );
    expect(
      new Map(rows.map((row) => [row.phone, { state: row.state, at: row.signedUpAt, key: row.key }])),
    ).toStrictEqual(
      new Map(
        signedUp.map(([phone, standing]) => [
          phone,
          { state: standing.state, at: firstRecord.get(phone)!.at, key: firstRecord.get(phone)!.id },
        ]),
      ),
    );
    // consentStandings names the same first record, the smaller id breaking a tie of times as the SQL does.
    expect(new Map(signedUp.map(([phone, standing]) => [phone, standing.signupId]))).toStrictEqual(
      new Map(signedUp.map(([phone]) => [phone, firstRecord.get(phone)!.id])),
    );
    // Newest sign-up first, the number breaking a tie.
    const order = rows.map((row) => [row.signedUpAt, row.phone] as const);
    expect(order).toStrictEqual(
      [...order].sort(([a, phoneA], [b, phoneB]) => b - a || (phoneA < phoneB ? -1 : phoneA > phoneB ? 1 : 0)),
    );

    // Worked out again from scratch (as the migration fills it), the table is the same: emptied first, so a
    // rebuild that did nothing would leave it empty.
    const kept = await store.db.selectFrom("consent_standings").selectAll().orderBy("phone").execute();
    expect(kept.length).toBeGreaterThan(0);
    await store.db.deleteFrom("consent_standings").execute();
    await rebuildStandings(store);
    expect(await store.db.selectFrom("consent_standings").selectAll().orderBy("phone").execute()).toStrictEqual(kept);

    const counts = await signedUpCounts(store, { since: base, bucketMs: DAY_MS });
    const count = (state: string) => signedUp.filter(([, standing]) => standing.state === state).length;
    expect(counts.states).toStrictEqual({
      "in force": count("in force"),
      revoked: count("revoked"),
      none: count("none"),
    });
    expect(counts.times).toStrictEqual([{ at: base, count: signedUp.length }]);
  });

  it("filter by standing, by the whole number, by digits and among numbers; page by offset; count what is left", async () => {
    const store = await engines(engine);
    await forgetConsents(store.db);
    const at = Date.parse("2026-11-20T10:00:00Z");
    const phones = ["+12125550101", "+12125550102", "+13105550103", "+13105550104"];
    for (const [i, phone] of phones.entries())
      await recordConsent(store, {
        evidence: plainEvidence(phone, disclosure),
        leadId: `lead-${i}`,
        at: at + i * DAY_MS,
      });
    await recordRevocation(store, { phone: phones[1]!, channel: "sms", source: "workflow", at: at + 10 * DAY_MS });
    const page = (filter: object, offset = 0, limit = 50) => signedUpPage(store, { filter, offset, limit });
    const phonesOf = async (filter: object, offset = 0, limit = 50) =>
      (await page(filter, offset, limit)).rows.map((row) => row.phone);

    expect(await phonesOf({})).toStrictEqual([...phones].reverse());
    expect(await phonesOf({ state: "revoked" })).toStrictEqual([phones[1]]);
    expect(await phonesOf({ state: "in force" })).toStrictEqual([phones[3], phones[2], phones[0]]);
    expect(await phonesOf({ phone: phones[2] })).toStrictEqual([phones[2]]);
    expect(await phonesOf({ digits: "310" })).toStrictEqual([phones[3], phones[2]]);
    expect(await phonesOf({ digits: "(212) 555" })).toStrictEqual([phones[1], phones[0]]);
    expect(await phonesOf({ phones: [phones[0], "+19995550000"] })).toStrictEqual([phones[0]]);
    expect(await phonesOf({ phones: [] })).toStrictEqual([]);
    expect(await phonesOf({ digits: "310", state: "revoked" })).toStrictEqual([]);
    // A page past the first, and past the end: the count still says how many there are.
    expect(await page({}, 1, 2)).toMatchObject({ total: 4, rows: [{ phone: phones[2] }, { phone: phones[1] }] });
    expect(await page({}, 8, 2)).toStrictEqual({ total: 4, rows: [] });
    expect(await page({ state: "revoked" }, 0, 1)).toMatchObject({ total: 1 });
    expect(await page({ digits: "999" })).toStrictEqual({ total: 0, rows: [] });
  });

  it("retention moves a number to the sign-up it keeps, and takes out of force and off the list a number it keeps none of", async () => {
    const store = await engines(engine);
    await forgetConsents(store.db);
    const at = Date.parse("2026-01-10T10:00:00Z");
    const [twice, once, renewed] = ["+12125550101", "+12125550102", "+12125550103"];
    await recordConsent(store, { evidence: plainEvidence(twice!, disclosure), leadId: "lead-1", at, id: "con_first" });
    await recordConsent(store, { evidence: plainEvidence(once!, disclosure), leadId: "lead-2", at });
    // A number that signed up again later, in force both times: the later record keeps it in force.
    await recordConsent(store, { evidence: plainEvidence(renewed!, disclosure), leadId: "lead-4", at });
    await recordConsent(store, {
      evidence: plainEvidence(renewed!, disclosure),
      leadId: "lead-4",
      at: at + 3 * DAY_MS,
      id: "con_later",
    });
    await recordRevocation(store, { phone: twice!, channel: "sms", source: "workflow", at: at + DAY_MS });
    await recordConsent(store, {
      evidence: plainEvidence(twice!, disclosure),
      leadId: "lead-3",
      at: at + 5 * DAY_MS,
      putsInForce: false,
      id: "con_again",
    });
    const listed = async () => (await signedUpPage(store, { filter: {}, offset: 0, limit: 50 })).rows;
    expect(await listed()).toStrictEqual([
      { phone: twice, key: "con_first", signedUpAt: at, state: "revoked" },
      { phone: once, key: expect.stringMatching(/^con_/), signedUpAt: at, state: "in force" },
      { phone: renewed, key: expect.stringMatching(/^con_/), signedUpAt: at, state: "in force" },
    ]);

    await forgetOldConsents(store, at + 2 * DAY_MS);
    // Its STOP went with its first sign-up; the evidence-only sign-up left puts nothing in force. The number whose
    // only record went is no longer in force: no proof is left to text it on (docs/operating.md).
    expect(await listed()).toStrictEqual([
      { phone: twice, key: "con_again", signedUpAt: at + 5 * DAY_MS, state: "none" },
      { phone: renewed, key: "con_later", signedUpAt: at + 3 * DAY_MS, state: "in force" },
    ]);
    expect(await consentStandings(store)).toStrictEqual(
      new Map([
        [twice, { state: "none", firstAt: at + 5 * DAY_MS, signupId: "con_again" }],
        [renewed, { state: "in force", firstAt: at + 3 * DAY_MS, recordId: "con_later", signupId: "con_later" }],
      ]),
    );
    expect(await consentStates(store, [once!])).toStrictEqual(new Map([[once, "none"]]));
  });
  it("count a START after a web sign-up's record, evidence only included, and never after the upgrade's tie alone", async () => {
    const store = await engines(engine);
    await forgetConsents(store.db);
    const at = Date.parse("2026-02-10T10:00:00Z");
    const [tied, evidenceOnly, signedUp, sameMoment] = ["+12125550121", "+12125550122", "+12125550123", "+12125550124"];
    // A lead older than consent records: the upgrade ties it to its number, which then texts STOP and START.
    await linkUnrecordedLead(store, { phone: tied!, leadId: "lead-old", at });
    // A STOP from a number that had not signed up, its web sign-up after it (evidence only), then its START.
    await recordRevocation(store, { phone: evidenceOnly!, channel: "sms", source: "workflow", at });
    await recordConsent(store, {
      evidence: plainEvidence(evidenceOnly!, disclosure),
      leadId: "lead-evidence",
      at: at + 1_000,
      putsInForce: false,
    });
    // A START at the very millisecond of the evidence-only sign-up it follows counts too.
    await recordRevocation(store, { phone: sameMoment!, channel: "sms", source: "workflow", at });
    await recordConsent(store, {
      evidence: plainEvidence(sameMoment!, disclosure),
      leadId: "lead-same",
      at: at + 2_000,
      putsInForce: false,
    });
    // A sign-up, its STOP, its START, and an evidence-only record after it: the START counts from the first record.
    await recordConsent(store, { evidence: plainEvidence(signedUp!, disclosure), leadId: "lead-web", at });
    for (const phone of [tied!, signedUp!])
      await recordRevocation(store, { phone, channel: "sms", source: "workflow", at: at + 1_000 });
    for (const [n, phone] of [tied!, evidenceOnly!, signedUp!, sameMoment!].entries())
      await recordRenewal(store, { phone, messageId: `start-${n}`, at: at + 2_000 });
    await recordConsent(store, {
      evidence: plainEvidence(signedUp!, disclosure),
      leadId: "lead-web-later",
      at: at + 3_000,
      putsInForce: false,
    });

    const states = new Map([...(await consentStandings(store))].map(([phone, standing]) => [phone, standing.state]));
    expect(states).toStrictEqual(
      new Map([
        [tied, "revoked"],
        [evidenceOnly, "in force"],
        [signedUp, "in force"],
        [sameMoment, "in force"],
      ]),
    );
    // The stored standings, worked out in SQL, say the same.
    const { rows } = await signedUpPage(store, { filter: {}, offset: 0, limit: 50 });
    expect(new Map(rows.map((row) => [row.phone, row.state]))).toStrictEqual(states);
  });
});
