import "server-only";
import type { Store } from "@/server/db/connect";
import { attemptsOf, countLeads, listLeads, type LeadRow } from "@/server/outbox/outbox-store";

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
 * The console's deliveries: the leads still waiting (pending, held, dead), the oldest 100 with their attempts, and how
 * many wait in all; and the newest 50 of the contact requests the site keeps (delivered, their values not yet past
 * retention), and how many it keeps.
 */
export async function deliveries(store: Store) {
  const waitingFilter = { states: ["pending", "held", "dead"] as const };
  const decision = { states: ["awaiting_release"] as const };
  const keptFilter = { states: ["delivered"] as const, form: "contact", withValues: true };
  const [waiting, waitingCount, kept, keptCount, awaiting, awaitingCount] = await Promise.all([
    listLeads(store, waitingFilter, { limit: WAITING_SHOWN }),
    countLeads(store, waitingFilter),
    listLeads(store, keptFilter, { limit: KEPT_SHOWN, newestFirst: true }),
    countLeads(store, keptFilter),
    listLeads(store, decision, { limit: AWAITING_READ }),
    countLeads(store, decision),
  ]);
  const open = await Promise.all(waiting.map(async (lead) => ({ lead, attempts: await attemptsOf(store, lead.id) })));
  return {
    open,
    waitingCount,
    kept: kept.map((lead) => ({ lead, values: valuesOf(lead.payload) ?? {} })),
    keptCount,
    groups: awaitingGroups(awaiting),
    awaitingCount,
  };
}

/** How many sign-ups past the day's budget the page reads and groups, oldest first; the rest wait their turn. */
export const AWAITING_READ = 2_000;
const HOUR_MS = 3_600_000;

/** What a flood's sign-ups share: the number's first digits (for +1, area code and exchange) and the UTC hour. */
export function groupOf(lead: Pick<LeadRow, "payload" | "created_at">) {
  const digits = (valuesOf(lead.payload)?.phone ?? "").replace(/\D/g, "").slice(0, 7);
  return `${digits}-${Math.floor(lead.created_at / HOUR_MS) * HOUR_MS}`;
}
export const groupKey = /^\d{0,7}-\d{1,15}$/;

/** "+1 415-555, 2026-12-07 14:00 UTC": the same words for the page, its confirmation and the activity log. */
export function groupWords(key: string) {
  const [digits = "", hour = "0"] = key.split("-");
  const start = new Date(Number(hour)).toISOString().slice(0, 16).replace("T", " ");
  const prefix = digits.startsWith("1") ? `+1 ${digits.slice(1, 4)}-${digits.slice(4)}` : `+${digits}`;
  return { prefix: digits ? prefix : "no number", hour: `${start} UTC` };
}

function awaitingGroups(leads: readonly LeadRow[]) {
  const groups = new Map<string, LeadRow[]>();
  for (const lead of leads) {
    const key = groupOf(lead);
    const group = groups.get(key);
    if (group) group.push(lead);
    else groups.set(key, [lead]);
  }
  return [...groups].map(([key, members]) => ({ key, ...groupWords(key), leads: members }));
}

/** The ids of the group's sign-ups still waiting, read as the page reads them. */
export async function groupIds(store: Store, key: string) {
  const leads = await listLeads(store, { states: ["awaiting_release"] }, { limit: AWAITING_READ });
  return leads.filter((lead) => groupOf(lead) === key).map((lead) => lead.id);
}
