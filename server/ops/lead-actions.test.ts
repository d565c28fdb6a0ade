import { describe, expect, it, vi } from "vitest";
import { recordConsent } from "@/server/consent/consent-store";
import { database, inTransaction, type Store } from "@/server/db/connect";
import type { LeadState } from "@/server/db/schema";
import { readEnv } from "@/server/env";
import { insertLead, newClaim } from "@/server/outbox/outbox-store";
import { commandActor } from "@/server/operators/operators";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { waitlistLead, webConsent } from "@/tests/support/waitlist-lead";
import { decideAwaiting, dropLeadById, redeliverLeads } from "./lead-actions";

const receiver = setupWebhookReceiver();
let counter = 0;

/** A web sign-up in `state`, with its consent record. */
async function signUp(store: Store, state: LeadState) {
  counter += 1;
  const phone = `+1415555${String(2000 + counter)}`;
  const lead = waitlistLead(phone, { state });
  await inTransaction(store, async (tx) => {
    await insertLead(tx, lead, newClaim(0));
    await recordConsent(tx, { evidence: webConsent(phone), leadId: lead.id, at: Date.now() });
  });
  return { id: lead.id, phone, name: JSON.parse(lead.payload!).name as string };
}

const consentsOf = async (store: Store, id: string) =>
  (await store.db.selectFrom("consents").select("id").where("lead_id", "=", id).execute()).length;
const lastLine = async (store: Store) =>
  store.db
    .selectFrom("operator_activity")
    .select(["action", "subject", "rows"])
    .orderBy("id", "desc")
    .executeTakeFirst();

describe("an operator's action on the leads", () => {
  it("sends one named lead, past the budget or not, and names it in the activity log", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
    const store = await database(readEnv());
    const waiting = await signUp(store, "awaiting_release");
    const summary = await redeliverLeads(readEnv(), { id: waiting.id, by: commandActor });
    expect(summary.delivered).toBe(1);
    expect(receiver.withName(waiting.name)).toHaveLength(1);
    expect(await lastLine(store)).toStrictEqual({ action: "redeliver", subject: waiting.id, rows: 1 });
  });

  it("drops a sign-up past the budget with its consent record; any other open lead without", async () => {
    const store = await database(readEnv());
    const waiting = await signUp(store, "awaiting_release");
    const held = await signUp(store, "held");
    expect(await dropLeadById(readEnv(), { id: waiting.id, by: commandActor })).toBe(true);
    expect(await consentsOf(store, waiting.id)).toBe(0);
    expect(await lastLine(store)).toStrictEqual({ action: "drop", subject: waiting.id, rows: 1 });
    expect(await dropLeadById(readEnv(), { id: held.id, by: commandActor })).toBe(true);
    expect(await consentsOf(store, held.id)).toBe(1);
    expect(await lastLine(store)).toStrictEqual({ action: "drop", subject: held.id, rows: 1 });
    expect(await dropLeadById(readEnv(), { id: held.id, by: commandActor })).toBe(false);
  });

  it("decides nothing, and writes no line, for no sign-up past the budget", async () => {
    const store = await database(readEnv());
    const held = await signUp(store, "held");
    const before = await lastLine(store);
    expect(await decideAwaiting(readEnv(), { ids: [held.id], subject: "x", release: false, by: commandActor })).toBe(0);
    expect(await decideAwaiting(readEnv(), { ids: [], subject: "x", release: false, by: commandActor })).toBe(0);
    expect(await lastLine(store)).toStrictEqual(before);
    expect(await consentsOf(store, held.id)).toBe(1);
  });
});
