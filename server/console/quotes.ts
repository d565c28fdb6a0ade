import "server-only";
import type { Store } from "@/server/db/connect";
import type { LeadState } from "@/server/db/schema";
import { readEnv } from "@/server/env";
import { leadById, listLeads } from "@/server/outbox/outbox-store";
import { handledAmong, insertActivity } from "@/server/operators/activity-store";
import type { Actor } from "@/server/operators/operators";
import { valuesOf } from "./deliveries";

/** How many quote requests the page shows, newest first; the CSV holds every one. */
export const QUOTES_SHOWN = 200;
const DAY_MS = 86_400_000;

/** Where a request stands, in the founder's words. */
export const quoteStates: Partial<Record<LeadState, string>> = {
  held: "waiting: no workflow connected",
  pending: "retrying",
  dead: "gave up",
  delivered: "delivered",
};

/** Every quote request whose values are kept, newest first, with when it was handled and until when it is kept. */
export async function quoteRequests(store: Store) {
  const leads = await listLeads(
    store,
    { form: "contact", withValues: true },
    { limit: QUOTES_SHOWN, newestFirst: true },
  );
  const handled = await handledAmong(
    store,
    leads.map((lead) => lead.id),
  );
  const keptMs = readEnv().LEAD_RETENTION_DAYS * DAY_MS;
  return leads.map((lead) => ({
    id: lead.id,
    values: valuesOf(lead.payload) ?? {},
    receivedAt: lead.created_at,
    state: quoteStates[lead.state] ?? lead.state,
    // Undelivered, a request is kept until it is delivered, then as long as any.
    keptUntil: lead.delivered_at === null ? null : lead.delivered_at + keptMs,
    handledAt: handled.get(lead.id) ?? null,
  }));
}

/** An owner marks a kept request handled, once; false for no such request. */
export async function markHandled(store: Store, { id, by }: { id: string; by: Actor }) {
  const lead = await leadById(store, id);
  if (lead?.receiver !== "contact" || lead.payload === null) return false;
  if (!(await handledAmong(store, [id])).has(id))
    await insertActivity(store, { ...by, action: "handled", subject: id, rows: 1 });
  return true;
}

/** "a•••@example.com": enough to tell two requests apart, as a masked number is. */
export function maskedEmail(email: string) {
  const at = email.lastIndexOf("@");
  return at < 1 ? "•••" : `${email[0]}•••${email.slice(at)}`;
}
