import "server-only";
import type { Store } from "@/server/db/connect";
import { attemptsOf, countLeads, listLeads } from "@/server/outbox/outbox-store";

/** How many kept contact requests the page shows, newest first. */
export const KEPT_SHOWN = 50;
/** How many waiting leads the page shows, oldest first: the rest wait their turn on the page (and in `npm run leads`). */
export const WAITING_SHOWN = 100;

/** A lead's kept values, parsed; undefined once retention emptied them. */
export function valuesOf(payload: string | null): Record<string, string> | undefined {
  if (!payload) return undefined;
  try {
    const values = JSON.parse(payload) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, String(value ?? "")]));
  } catch {
    return undefined;
  }
}

/**
 * The console's deliveries: the leads still waiting (pending, held, dead),
 * the oldest 100 with their attempts, and how many wait in all; and the
 * newest 50 of the contact requests the site keeps (delivered, their values
 * not yet past retention), and how many it keeps.
 */
export async function deliveries(store: Store) {
  const waitingFilter = { states: ["pending", "held", "dead"] as const };
  const keptFilter = { states: ["delivered"] as const, form: "contact", withValues: true };
  const [waiting, waitingCount, kept, keptCount] = await Promise.all([
    listLeads(store, waitingFilter, { limit: WAITING_SHOWN }),
    countLeads(store, waitingFilter),
    listLeads(store, keptFilter, { limit: KEPT_SHOWN, newestFirst: true }),
    countLeads(store, keptFilter),
  ]);
  const open = await Promise.all(waiting.map(async (lead) => ({ lead, attempts: await attemptsOf(store, lead.id) })));
  return {
    open,
    waitingCount,
    kept: kept.map((lead) => ({ lead, values: valuesOf(lead.payload) ?? {} })),
    keptCount,
  };
}
