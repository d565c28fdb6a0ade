import "server-only";
import type { Store } from "@/server/db/connect";
import type { Database } from "@/server/db/schema";
import { touchFields, type Touch } from "@/server/web/visits";

/** The tables this file owns: the only file whose SQL names them (server/db/table-owners.test.ts). */
export const ownedTables = ["lead_sources"] as const satisfies readonly (keyof Database)[];

/** A new lead's first touch: a retry or a repeat finds its lead, and keeps the touch it had. */
export async function recordSource({ db }: Store, lead: { id: string; form: string; at: number }, touch: Touch) {
  await db
    .insertInto("lead_sources")
    .values({ lead_id: lead.id, form: lead.form, created_at: lead.at, ...touch })
    .execute();
}

/** Each lead's first touch; a lead from before sources were kept has none. */
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
