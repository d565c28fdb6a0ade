import "server-only";
import { database, inTransaction, type Store } from "@/server/db/connect";
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

type Visit = { day: string; page: string; source: string; campaign: string; views: number };

/** The sources a form's leads came from, by name. */
export async function sourceNames({ db }: Store, form: string) {
  const rows = await db.selectFrom("lead_sources").select("source").distinct().where("form", "=", form).execute();
  return rows.map((row) => row.source).sort();
}

/** Ids of a form's leads from `source`: a subquery another table's owner filters by. */
export const leadIdsFrom = ({ db }: Store, form: string, source: string) =>
  db.selectFrom("lead_sources").select("lead_id as id").where("form", "=", form).where("source", "=", source);

/** `views` more views of a page from outside the site, on a day (UTC). */
export async function countVisits({ db }: Store, visits: readonly Visit[]) {
  for (const visit of visits)
    await db
      .insertInto("visits")
      .values(visit)
      .onConflict((conflict) =>
        conflict
          .columns(["day", "page", "source", "campaign"])
          .doUpdateSet((eb) => ({ views: eb("visits.views", "+", visit.views) })),
      )
      .execute();
}

export const visitOf = (page: string, touch: Touch, at: number): Visit => ({
  day: dayOf(at),
  page,
  source: touch.source,
  campaign: touch.campaign ?? "",
  views: 1,
});

// Views wait this long to be written together: one transaction for a spike's many, and a page answered at its pace.
const VISITS_BATCH_MS = 200;
const waiting = new Map<string, Visit>();
let written: Promise<void> | undefined;

async function writeWaiting() {
  await new Promise((resolve) => setTimeout(resolve, VISITS_BATCH_MS));
  const visits = [...waiting.values()];
  waiting.clear();
  written = undefined;
  try {
    await inTransaction(await database(readEnv()), (tx) => countVisits(tx, visits));
  } catch (error) {
    logEvent("warn", { event: "visit_not_counted", error: error instanceof Error ? error.name : "unknown" });
  }
}

/** As middleware counts it, after the page is answered: resolves once written; a failure is a log line. */
export function recordVisit(page: string, touch: Touch) {
  const visit = visitOf(page, touch, Date.now());
  const key = JSON.stringify([visit.day, visit.page, visit.source, visit.campaign]);
  const counted = waiting.get(key);
  if (counted) counted.views += 1;
  else waiting.set(key, visit);
  return (written ??= writeWaiting());
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
