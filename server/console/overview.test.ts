import { afterEach, describe, expect, it, vi } from "vitest";
import { updateInvitations } from "@/tests/support/lead-rows";
import { recordConsent } from "@/server/consent/consent-store";
import { disclosureOf } from "@/server/consent/disclosure";
import { newWebhookId, insertLead, WAITS_FOR_BUDGET } from "@/server/outbox/outbox-store";
import { queueWave } from "@/server/invitations/waves";
import { revokeConsent } from "@/server/consent/consent-changes";
import { setupBothEngines } from "@/tests/support/both-engines";
import { plainEvidence, waitlistLead } from "@/tests/support/waitlist-lead";
import { growth, overview, perDay } from "./overview";

const engines = setupBothEngines();

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

afterEach(() => vi.useRealTimers());

describe("sign-ups per day", () => {
  it("counts each time's count on its day in the zone, the last N days oldest first, today included, nothing outside", () => {
    const now = day("2026-11-28") + 15 * 3_600_000;
    const counts = perDay(
      [
        { at: day("2026-11-28") + 1, count: 1 },
        { at: day("2026-11-28") + 14 * 3_600_000, count: 2 },
        { at: day("2026-11-27") + 23 * 3_600_000 + 59 * 60_000, count: 1 },
        { at: day("2026-11-26"), count: 1 },
        // The day before the first shown, and a time in the future: neither counted.
        { at: day("2026-11-25") + 23 * 3_600_000, count: 1 },
        { at: day("2026-11-29"), count: 1 },
      ],
      { days: 3, now, zone: "UTC" },
    );
    expect(counts).toStrictEqual([
      { day: "2026-11-26", count: 1 },
      { day: "2026-11-27", count: 1 },
      { day: "2026-11-28", count: 3 },
    ]);
  });

  it("counts on the zone's own days: New York's evening is the next UTC day, Kathmandu's morning the one before", () => {
    const times = [
      // 2026-11-28 01:30 UTC: the 27th, 20:30, in New York (UTC-5); the 28th, 07:15, in Kathmandu (UTC+5:45).
      { at: day("2026-11-28") + 90 * 60_000, count: 1 },
      // 2026-11-27 18:15 UTC: the 27th in New York; the 28th, 00:00, in Kathmandu.
      { at: day("2026-11-27") + 18 * 3_600_000 + 15 * 60_000, count: 2 },
      // 2026-11-27 18:00 UTC: the 27th, 23:45, in Kathmandu.
      { at: day("2026-11-27") + 18 * 3_600_000, count: 4 },
    ];
    const now = day("2026-11-28") + 12 * 3_600_000;
    expect(perDay(times, { days: 2, now, zone: "America/New_York" })).toStrictEqual([
      { day: "2026-11-27", count: 7 },
      { day: "2026-11-28", count: 0 },
    ]);
    expect(perDay(times, { days: 2, now, zone: "Asia/Kathmandu" })).toStrictEqual([
      { day: "2026-11-27", count: 4 },
      { day: "2026-11-28", count: 3 },
    ]);
    // Across a change of the clocks (1 November 2026 in New York), each day is one calendar day.
    const autumn = perDay([], { days: 3, now: day("2026-11-02") + 12 * 3_600_000, zone: "America/New_York" });
    expect(autumn.map(({ day }) => day)).toStrictEqual(["2026-10-31", "2026-11-01", "2026-11-02"]);
  });

  it("reads today, this week from Monday and last week, each beside the same span before it", () => {
    // 21 days to Wednesday 2026-11-25: a sign-up on day i counts i.
    const days = Array.from({ length: 21 }, (_, i) => ({
      day: new Date(day("2026-11-05") + i * 86_400_000).toISOString().slice(0, 10),
      count: i,
    }));
    expect(days.at(-1)!.day).toBe("2026-11-25");
    // Monday the 23rd is index 18; the week before began on the 16th (11), the one before it on the 9th (4).
    expect(growth(days)).toStrictEqual({
      today: { count: 20, before: 19 },
      thisWeek: { count: 18 + 19 + 20, before: 11 + 12 + 13 },
      lastWeek: { count: 11 + 12 + 13 + 14 + 15 + 16 + 17, before: 4 + 5 + 6 + 7 + 8 + 9 + 10 },
    });
    // On a Monday, this week is today.
    expect(growth(days.slice(0, 19)).thisWeek).toStrictEqual({ count: 18, before: 11 });
  });

  it("shows every day, those without a sign-up as 0", () => {
    const counts = perDay([], { days: 90, now: day("2026-11-28"), zone: "UTC" });
    expect(counts).toHaveLength(90);
    expect(counts[0]).toStrictEqual({ day: "2026-08-31", count: 0 });
    expect(counts.at(-1)).toStrictEqual({ day: "2026-11-28", count: 0 });
  });
});

describe.each(["sqlite", "postgres"] as const)("the overview's counts on %s", (engine) => {
  it("numbers on the list, consent in force and revoked, invited and texted, sign-ups by day, leads waiting", async () => {
    const store = await engines(engine);
    for (const table of [
      "invitations",
      "invitation_waves",
      "consents",
      "consent_revocations",
      "consent_standings",
      "consent_messages",
      "outbox",
    ] as const)
      await store.db.deleteFrom(table).execute();
    const now = day("2026-11-28") + 12 * 3_600_000;
    vi.setSystemTime(now);
    const phones = ["+12125550101", "+12125550102", "+12125550103"];
    for (const [i, phone] of phones.entries())
      await recordConsent(store, {
        evidence: plainEvidence(phone, disclosureOf("I agree.")),
        leadId: newWebhookId(),
        at: now - i * 86_400_000,
      });
    await revokeConsent(store, { phone: phones[2]!, channel: "sms", source: "workflow", at: now });
    // A second sign-up counts the number once, on its first day; a stranger's STOP puts no one on the list.
    await recordConsent(store, {
      evidence: plainEvidence(phones[1]!, disclosureOf("I agree.")),
      leadId: newWebhookId(),
      at: now,
    });
    await revokeConsent(store, { phone: "+12125550199", channel: "sms", source: "workflow", at: now });
    // A sign-up kept as evidence only (after a STOP the site never saw a sign-up for): on the list, neither in force nor revoked.
    await recordConsent(store, {
      evidence: plainEvidence("+12125550104", disclosureOf("I agree.")),
      leadId: newWebhookId(),
      at: now - 100 * 86_400_000,
      putsInForce: false,
    });
    await queueWave(store, { name: "w", selection: { next: 1 }, text: () => "Hi", now });
    await updateInvitations(store.db, { state: "texted" });
    await queueWave(store, { name: "w2", selection: { next: 1 }, text: () => "Hi", now });
    await insertLead(store, waitlistLead(phones[0]!, { state: "dead" }));

    const seen = await overview(store, "UTC");
    expect(seen).toMatchObject({ onList: 4, inForce: 2, revoked: 1, invited: 2, texted: 1 });
    expect(seen.signups).toHaveLength(90);
    // The first day shown counts from its start, whatever the zone's offset.
    await recordConsent(store, {
      evidence: plainEvidence("+12125550105", disclosureOf("I agree.")),
      leadId: newWebhookId(),
      at: day("2026-08-31"),
    });
    expect((await overview(store, "UTC")).signups[0]).toStrictEqual({ day: "2026-08-31", count: 1 });
    await store.db.deleteFrom("consent_standings").where("phone", "=", "+12125550105").execute();
    // The evidence-only sign-up, 100 days back, is before the chart's first day.
    expect(seen.signups.slice(-3).map(({ count }) => count)).toStrictEqual([1, 1, 1]);
    expect(seen.signups.reduce((sum, { count }) => sum + count, 0)).toBe(3);
    // Saturday the 28th: one today, one yesterday, three this week and none the week before.
    expect(seen.growth).toStrictEqual({
      today: { count: 1, before: 1 },
      thisWeek: { count: 3, before: 0 },
      lastWeek: { count: 0, before: 0 },
    });
    // Invited: every invitation queued or past it, whatever became of it, but one cancelled or skipped.
    for (const [state, invited] of [
      ["waiting", 2],
      ["refused", 2],
      ["failed", 2],
      ["cancelled", 1],
      ["skipped", 1],
    ] as const) {
      await updateInvitations(store.db, { state }, { wave: "w2" });
      expect((await overview(store, "UTC")).invited, state).toBe(invited);
    }
    expect(seen.waiting).toStrictEqual([expect.objectContaining({ form: "waitlist", state: "dead", count: 1 })]);
    // Pending for a redelivery or for the texts budget, told apart; past the day's budget, for the owner.
    await insertLead(store, waitlistLead(phones[1]!, { state: "pending", last_failure: "status 503" }));
    await insertLead(store, waitlistLead(phones[2]!, { state: "pending", last_failure: WAITS_FOR_BUDGET }));
    await insertLead(store, waitlistLead(phones[2]!, { state: "pending", last_failure: WAITS_FOR_BUDGET }));
    await insertLead(store, waitlistLead("+12125550104", { state: "awaiting_release" }));
    expect((await overview(store, "UTC")).waiting).toStrictEqual([
      { form: "waitlist", state: "pending", count: 1 },
      { form: "waitlist", state: "for the texts budget", count: 2 },
      { form: "waitlist", state: "dead", count: 1 },
      { form: "waitlist", state: "for your decision", count: 1 },
    ]);
  });
});
