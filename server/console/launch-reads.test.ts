import { describe, expect, it } from "vitest";
import { reserveAlert, lastAlerts } from "@/server/outbox/alert-store";
import { recordConsent } from "@/server/consent/consent-store";
import { disclosureOf } from "@/server/consent/disclosure";
import { newWebhookId } from "@/server/outbox/outbox-store";
import { setupBothEngines } from "@/tests/support/both-engines";
import { plainEvidence } from "@/tests/support/waitlist-lead";
import { queueWave } from "@/server/invitations/waves";
import { cancelWaveNamed } from "@/server/invitations/launch";
import type { Actor } from "@/server/operators/operators";
import { waveRecipients, wavesWithStatus } from "./invitations";

const engines = setupBothEngines();
const disclosure = disclosureOf("I agree.");

async function open(engine: "sqlite" | "postgres") {
  const store = await engines(engine);
  for (const table of ["invitations", "invitation_waves", "consents", "alerts", "operator_activity"] as const)
    await store.db.deleteFrom(table).execute();
  return store;
}

describe.each(["sqlite", "postgres"] as const)("what the console reads of the launch on %s", (engine) => {
  it("every wave newest first, with its size, its cancel and its status by state", async () => {
    const store = await open(engine);
    const phones = ["+12125550101", "+12125550102", "+12125550103"];
    for (const [i, phone] of phones.entries())
      await recordConsent(store, { evidence: plainEvidence(phone, disclosure), leadId: newWebhookId(), at: 1_000 + i });
    await queueWave(store, { name: "first", selection: { next: 1 }, text: () => "Hi", now: 10_000 });
    await queueWave(store, { name: "second", selection: { all: true }, text: () => "Hi", now: 20_000 });
    await cancelWaveNamed(store, { name: "second", by: { actor: "owner@sous.example", via: "console" } as Actor });

    const waves = await wavesWithStatus(store);
    expect(waves.map(({ name, createdAt, size }) => ({ name, createdAt, size }))).toStrictEqual([
      { name: "second", createdAt: 20_000, size: 2 },
      { name: "first", createdAt: 10_000, size: 1 },
    ]);
    expect(waves[0]!.cancelledAt).toBeGreaterThan(0);
    expect(waves[1]!.cancelledAt).toBeNull();
    expect(waves[0]!.status.counts).toMatchObject({ queued: 0, cancelled: 2 });
    expect(waves[1]!.status.counts).toMatchObject({ queued: 1, cancelled: 0 });
    expect(waves[1]!.status.wave).toBe("first");
  });

  it("a wave's recipients, each with their invitation in words: the number in full for an owner, masked for a viewer", async () => {
    const store = await open(engine);
    for (const [i, phone] of ["+12125550101", "+12125550102"].entries())
      await recordConsent(store, { evidence: plainEvidence(phone, disclosure), leadId: newWebhookId(), at: 1_000 + i });
    await queueWave(store, { name: "first", selection: { all: true }, text: () => "Hi", now: 10_000 });
    const [refused, queued] = await store.db.selectFrom("invitations").selectAll().orderBy("phone").execute();
    await store.db.updateTable("outbox").set({ state: "refused" }).where("id", "=", refused!.id).execute();
    await store.db.updateTable("invitations").set({ carrier_code: "21614" }).where("id", "=", refused!.id).execute();
    const byPhone = (rows: { phone: string }[]) => rows.sort((a, b) => a.phone.localeCompare(b.phone));
    expect(byPhone(await waveRecipients(store, "first", false))).toStrictEqual([
      { chef: refused!.consent_id, phone: "+12125550101", state: "refused: not a mobile number" },
      { chef: queued!.consent_id, phone: "+12125550102", state: "queued" },
    ]);
    expect(byPhone(await waveRecipients(store, "first", true)).map(({ phone }) => phone)).toStrictEqual([
      "+1 ••• ••• 0101",
      "+1 ••• ••• 0102",
    ]);
    expect(await waveRecipients(store, "second", false)).toStrictEqual([]);
  });

  it("the last alerts sent, newest first, as many as asked", async () => {
    const store = await open(engine);
    await reserveAlert(store, { kind: "failing", form: "waitlist", now: 1_000, intervalMs: 0 });
    await reserveAlert(store, { kind: "dead", form: "contact", now: 3_000, intervalMs: 0 });
    await reserveAlert(store, { kind: "recovered", form: "waitlist", now: 2_000, intervalMs: 0 });
    expect(await lastAlerts(store)).toStrictEqual([
      { kind: "dead", form: "contact", sentAt: 3_000 },
      { kind: "recovered", form: "waitlist", sentAt: 2_000 },
      { kind: "failing", form: "waitlist", sentAt: 1_000 },
    ]);
    expect(await lastAlerts(store, 1)).toStrictEqual([{ kind: "dead", form: "contact", sentAt: 3_000 }]);
  });
});
