import { afterEach, describe, expect, it, vi } from "vitest";
import { updateInvitations } from "@/tests/support/lead-rows";
import { recordConsent } from "@/server/consent/consent-store";
import { disclosureOf } from "@/server/consent/disclosure";
import { newWebhookId, insertLead, WAITS_FOR_BUDGET } from "@/server/outbox/outbox-store";
import { queueWave } from "@/server/invitations/waves";
import { revokeConsent } from "@/server/consent/consent-changes";
import { setupBothEngines } from "@/tests/support/both-engines";
import { plainEvidence, waitlistLead } from "@/tests/support/waitlist-lead";
import { overview, perDay } from "./overview";

const engines = setupBothEngines();

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

afterEach(() => vi.useRealTimers());

describe("sign-ups per day", () => {
  it("counts each time's count on its UTC day, the last N days oldest first, today included, nothing outside", () => {
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
      { days: 3, now },
    );
    expect(counts).toStrictEqual([
      { day: "2026-11-26", count: 1 },
      { day: "2026-11-27", count: 1 },
      { day: "2026-11-28", count: 3 },
    ]);
  });

  it("shows every day, those without a sign-up as 0", () => {
    const counts = perDay([], { days: 90, now: day("2026-11-28") });
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

    const seen = await overview(store);
    expect(seen).toMatchObject({ onList: 4, inForce: 2, revoked: 1, invited: 2, texted: 1 });
    expect(seen.signups).toHaveLength(90);
    // The evidence-only sign-up, 100 days back, is before the chart's first day.
    expect(seen.signups.slice(-3).map(({ count }) => count)).toStrictEqual([1, 1, 1]);
    expect(seen.signups.reduce((sum, { count }) => sum + count, 0)).toBe(3);
    // Invited: every invitation queued or past it, whatever became of it, but one cancelled or skipped.
    for (const [state, invited] of [
      ["waiting", 2],
      ["refused", 2],
      ["failed", 2],
      ["cancelled", 1],
      ["skipped", 1],
    ] as const) {
      await updateInvitations(store.db, { state }, { wave: "w2" });
      expect((await overview(store)).invited, state).toBe(invited);
    }
    expect(seen.waiting).toStrictEqual([expect.objectContaining({ form: "waitlist", state: "dead", count: 1 })]);
    // Pending for a redelivery or for the texts budget, told apart; past the day's budget, for the owner.
    await insertLead(store, waitlistLead(phones[1]!, { state: "pending", last_failure: "status 503" }));
    await insertLead(store, waitlistLead(phones[2]!, { state: "pending", last_failure: WAITS_FOR_BUDGET }));
    await insertLead(store, waitlistLead(phones[2]!, { state: "pending", last_failure: WAITS_FOR_BUDGET }));
    await insertLead(store, waitlistLead("+12125550104", { state: "awaiting_release" }));
    expect((await overview(store)).waiting).toStrictEqual([
      { form: "waitlist", state: "pending", count: 1 },
      { form: "waitlist", state: "for the texts budget", count: 2 },
      { form: "waitlist", state: "dead", count: 1 },
      { form: "waitlist", state: "for your decision", count: 1 },
    ]);
  });
});
