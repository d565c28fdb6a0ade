import "server-only";
import { database, type Store } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { logEvent } from "@/server/log";
import type { Database } from "@/server/db/schema";
import { touchFields, type Touch } from "@/server/web/visits";

/** The tables this file owns: the only file whose SQL names them (server/db/table-owners.test.ts). */
export const ownedTables = ["lead_sources", "visits"] as const satisfies readonly (keyof Database)[];

/** A new lead's first touch: a retry or a repeat finds its lead, and keeps the touch it had. */
export async function recordSource({ db }: Store, lead: { id: string; form: string; at: number }, touch: Touch) {
  await db
    .insertInto("lead_sources")
    .values({ lead_id: lead.id, form: lead.form, created_at: lead.at, ...touch })
    .execute();
}

/** Each lead's first touch. */
export async function sourcesOf({ db }: Store, leadIds: readonly string[]) {
  const rows = leadIds.length
    ? await db
        .selectFrom("lead_sources")
        .select(["lead_id", ...touchFields])
        .where("lead_id", "in", [...leadIds])
        .execute()
    : [];
  return new Map(rows.map(({ lead_id, ...touch }) => [lead_id, touch]));
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** One more view of `page` from outside the site, on the day of `at` (UTC). */
export async function countVisit({ db }: Store, { page, touch, at }: { page: string; touch: Touch; at: number }) {
  await db
    .insertInto("visits")
    .values({ day: dayOf(at), page, source: touch.source, campaign: touch.campaign ?? "", views: 1 })
    .onConflict((conflict) =>
      conflict
        .columns(["day", "page", "source", "campaign"])
        .doUpdateSet((eb) => ({ views: eb("visits.views", "+", 1) })),
    )
    .execute();
}

/** As middleware counts it, after the page is answered: a failure is a log line, never the visitor's. */
export async function recordVisit(page: string, touch: Touch) {
  try {
    await countVisit(await database(readEnv()), { page, touch, at: Date.now() });
  } catch (error) {
    logEvent("warn", { event: "visit_not_counted", error: error instanceof Error ? error.name : "unknown" });
  }
}

export type SourceCount = { source: string; campaign: string; visits: number; signups: number; quotes: number };

/** Visits, sign-ups and quote requests since the UTC day of `since`, by source and campaign ("" for none). */
export async function sourceCounts({ db }: Store, since: number): Promise<SourceCount[]> {
  const visits = await db
    .selectFrom("visits")
    .select(["source", "campaign", (eb) => eb.fn.sum<number>("views").as("count")])
    .where("day", ">=", dayOf(since))
    .groupBy(["source", "campaign"])
    .execute();
  const leads = await db
    .selectFrom("lead_sources")
    .select(["source", "campaign", "form", (eb) => eb.fn.countAll<number>().as("count")])
    .where("created_at", ">=", Date.parse(dayOf(since)))
    .groupBy(["source", "campaign", "form"])
    .execute();
  const counts = new Map<string, SourceCount>();
  const of = (source: string, campaign: string | null) => {
    const key = JSON.stringify([source, campaign ?? ""]);
    let count = counts.get(key);
    if (!count) counts.set(key, (count = { source, campaign: campaign ?? "", visits: 0, signups: 0, quotes: 0 }));
    return count;
  };
  for (const row of visits) of(row.source, row.campaign).visits += Number(row.count);
  for (const row of leads) {
    const count = of(row.source, row.campaign);
    if (row.form === "waitlist") count.signups += Number(row.count);
    if (row.form === "contact") count.quotes += Number(row.count);
  }
  return [...counts.values()];
}
