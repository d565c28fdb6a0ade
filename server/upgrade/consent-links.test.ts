import { describe, expect, it, vi } from "vitest";
import { consentRecords, consentStates } from "@/server/consent/consent-store";
import { renewConsent, revokeConsent } from "@/server/signups/consent-changes";
import { importLead, leadById } from "@/server/leads/lead-store";
import { setupBothEngines } from "@/tests/support/both-engines";
import { waitlistLead } from "@/tests/support/waitlist-lead";
import { linkUnrecordedLeads } from "./consent-links";

const open = setupBothEngines();

describe.each(["sqlite", "postgres"] as const)("the upgrade's tie of old leads to their numbers, on %s", (engine) => {
  it("lets a STOP or a START find a lead made before consent records, once each, and puts no consent in force", async () => {
    vi.spyOn(console, "info").mockImplementation(() => {});
    const store = await open(engine);
    const number = (n: number) => `+1557${engine === "sqlite" ? 1 : 2}00000${n}`;
    // Kept by the stores before consent records: open, so still to be sent; and one delivered long ago.
    const [first, second] = [waitlistLead(number(1)), waitlistLead(number(2), { state: "dead" })];
    // One waiting for a START (its number's consent revoked), whose record went: a START or a STOP must find it too.
    const awaiting = waitlistLead(number(7), { state: "awaiting_start" });
    const delivered = waitlistLead(number(3), { state: "delivered", dedupe_key: null, delivered_at: 1_500 });
    // And three that name no number to tie: values unreadable, without a phone, with a phone that is not text.
    const unreadable = waitlistLead(number(4), { payload: "{" });
    const phoneless = waitlistLead(number(5), { payload: JSON.stringify({ name: "No number" }) });
    const numeric = waitlistLead(number(6), { payload: JSON.stringify({ phone: Number(number(6)), name: "A sum" }) });
    for (const row of [first, second, awaiting, delivered, unreadable, phoneless, numeric])
      await importLead(store, row);

    // Before the tie, the key finds nothing: the STOP would not stop the lead.
    expect(await revokeConsent(store, { phone: number(1), channel: "sms", source: "workflow" })).toMatchObject({
      recorded: true,
      leadsStopped: 0,
    });
    expect(await leadById(store, first.id)).toMatchObject({ state: "pending" });

    const info = vi.mocked(console.info);
    info.mockClear();
    expect(await linkUnrecordedLeads(store)).toBe(3);
    expect(await linkUnrecordedLeads(store)).toBe(0);
    // Said once, by count: never a number.
    expect(info.mock.calls.map((line) => JSON.parse(String(line[0])))).toStrictEqual([
      expect.objectContaining({ level: "info", event: "consent_links_backfilled", leads: 3 }),
    ]);
    expect(JSON.stringify(info.mock.calls)).not.toContain(number(1).slice(2));
    const tie = (await consentRecords(store, { phone: number(2) })).consents;
    expect(tie).toStrictEqual([
      expect.objectContaining({
        lead_id: second.id,
        puts_in_force: 0,
        ip: null,
        disclosure_version: "unrecorded",
        disclosure_text: expect.stringContaining("No consent record was kept"),
      }),
    ]);
    expect((await consentRecords(store, { phone: number(3) })).consents).toStrictEqual([]);
    expect((await consentStates(store, [number(2)])).get(number(2))).toBe("none");

    expect(await revokeConsent(store, { phone: number(2), channel: "sms", source: "workflow" })).toMatchObject({
      leadsStopped: 1,
    });
    expect(await leadById(store, second.id)).toMatchObject({ state: "revoked", payload: null });
    expect(await revokeConsent(store, { phone: number(1), channel: "sms", source: "workflow" })).toMatchObject({
      leadsStopped: 1,
    });
    expect(
      await renewConsent(store, { phone: number(7), messageId: `SM-links-${engine}`, at: Date.now() }),
    ).toMatchObject({ recorded: true, leadsReleased: 1 });
    expect(await leadById(store, awaiting.id)).toMatchObject({ state: "pending" });
  });
});
