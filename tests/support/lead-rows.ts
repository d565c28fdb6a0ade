import { randomUUID } from "node:crypto";
import path from "node:path";
import { SQLite } from "@/server/db/sqlite-driver";
import { Kysely, PostgresDialect, SqliteDialect, type Updateable } from "kysely";
import pg from "pg";
import { invitationStates, type Database, type InvitationState, type OutboxTable } from "@/server/db/schema";
import { smsTexts } from "@/lib/sms/program";

/** The servers' database, opened from a test as an operator with `sqlite3` or `psql` would: the servers made the tables. */
export function testDatabase(target: { dataDir: string } | { databaseUrl: string }) {
  const dialect =
    "databaseUrl" in target
      ? new PostgresDialect({ pool: new pg.Pool({ connectionString: target.databaseUrl, max: 2 }) })
      : new SqliteDialect({ database: new SQLite(path.join(target.dataDir, "sous.db")) });
  return new Kysely<Database>({ dialect });
}

/**
 * How many invitations are in each state, every state named (of one wave, or
 * of all): what `npm run invite -- status` counts, read from the table, so a
 * spec can poll it without starting a process for each look.
 */
/** The link an SMS gives when it is the invitation's text with a link of its own on `origin`; else undefined. */
export function invitationLinkOf(body: string, origin: string) {
  const [before, after] = smsTexts.invitation("\n").split("\n") as [string, string];
  const link = body.slice(before.length, body.length - after.length);
  const own = link.startsWith(`${origin}/i/`) && /^[\w-]{12}$/.test(link.slice(`${origin}/i/`.length));
  return body.startsWith(before) && body.endsWith(after) && own ? link : undefined;
}

export async function invitationCounts(db: Kysely<Database>, wave?: string) {
  const rows = await db
    .selectFrom("outbox")
    .select((eb) => ["state", eb.fn.countAll<number | string>().as("count")])
    .where("id", "in", invitationIds(db, { wave }))
    .groupBy("state")
    .execute();
  const counts = Object.fromEntries(invitationStates.map((state) => [state, 0])) as Record<InvitationState, number>;
  for (const row of rows) counts[row.state as InvitationState] = Number(row.count);
  return counts;
}

const invitationIds = (db: Kysely<Database>, { wave, phone }: { wave?: string; phone?: string }) =>
  db
    .selectFrom("invitations")
    .select("id")
    .$if(wave !== undefined, (query) => query.where("wave", "=", wave!))
    .$if(phone !== undefined, (query) => query.where("phone", "=", phone!));

/** Changes invitations' delivery state (their outbox rows) as a pass or the workflow's answer would have. */
export async function updateInvitations(
  db: Kysely<Database>,
  change: Updateable<OutboxTable>,
  which: { wave?: string; phone?: string } = {},
) {
  await db.updateTable("outbox").set(change).where("id", "in", invitationIds(db, which)).execute();
}

/** Writes and reads the servers' leads table from a test: the servers made it, the test only fills and reads it. */
export function leadsTable(target: { dataDir: string } | { databaseUrl: string }) {
  const db = testDatabase(target);
  return {
    db,
    /** `count` pending leads, due now, whose names start with `prefix`; resolves to their webhook-ids. */
    async addDue(count: number, prefix: string) {
      const now = Date.now();
      const rows = Array.from({ length: count }, (_, i) => ({
        id: `msg_${randomUUID()}`,
        receiver: "waitlist",
        dedupe_key: randomUUID(),
        payload: JSON.stringify({ phone: `+1555020${String(i).padStart(4, "0")}`, name: `${prefix} ${i}` }),
        state: "pending" as const,
        created_at: now,
        next_attempt_at: now - 1,
      }));
      await db.insertInto("outbox").values(rows).execute();
      return rows.map((row) => row.id);
    },
    async states(ids: string[]) {
      const rows = await db.selectFrom("outbox").select(["id", "state"]).where("id", "in", ids).execute();
      return rows.map((row) => row.state);
    },
    close: () => db.destroy(),
  };
}

/** Every consent table, emptied: a test's numbers start with no record, no event and no claimed message. */
export const consentTables = [
  "consents",
  "consent_revocations",
  "consent_renewals",
  "consent_standings",
  "consent_messages",
] as const satisfies readonly (keyof Database)[];

export async function forgetConsents(db: Kysely<Database>) {
  for (const table of consentTables) await db.deleteFrom(table).execute();
}
