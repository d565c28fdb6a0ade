/**
 * `npm run db:copy`: moves everything the site keeps from its SQLite file
 * (DATA_DIR) into the Postgres of DATABASE_URL, for a site outgrowing one
 * machine: leads and their delivery log, consent records, the texts they
 * name, revocations, and the alert and receiver state. The SQLite file is
 * opened read-only and left as it was; the copy is one transaction on the
 * target, which must hold no rows yet, and the counts are compared before it
 * commits. docs/operating.md, "Moving to Postgres".
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { Kysely, SqliteDialect } from "kysely";
import { connect, postgresTarget, sqliteFile } from "@/server/db/connect";
import { migrations } from "@/server/db/migrations";
import type { Database } from "@/server/db/schema";
import { SQLite } from "@/server/db/sqlite-driver";

/** In the order foreign keys allow: a lead before its attempts, a text before the records that name it. */
export const copiedTables = [
  "disclosures",
  "leads",
  "lead_attempts",
  "consents",
  "consent_revocations",
  "consent_renewals",
  "alerts",
  "receivers",
  "alert_states",
] as const;
type Table = (typeof copiedTables)[number];

// Well under Postgres's 65,535 bound parameters for the widest table.
const ROWS_PER_INSERT = 500;

export type CopyResult = Record<Table, number>;

async function countsOf(db: Kysely<Database>) {
  const counts = {} as CopyResult;
  for (const table of copiedTables) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.count);
  }
  return counts;
}

/** Copies the SQLite database under `dataDir` into the Postgres at `databaseUrl`; resolves to the rows copied per table. */
export async function copyDatabase({
  dataDir,
  databaseUrl,
}: {
  dataDir: string;
  databaseUrl: string;
}): Promise<CopyResult> {
  const file = sqliteFile(dataDir);
  if (!existsSync(file))
    throw new Error(`No SQLite database at ${path.resolve(file)}: set DATA_DIR to the folder that holds sous.db`);
  const source = new Kysely<Database>({
    dialect: new SqliteDialect({ database: new SQLite(file, { readonly: true, fileMustExist: true }) }),
  });
  // The target is migrated by connect(); the source must be at the same migration.
  const target = await connect({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
  try {
    const applied = (
      await source
        .selectFrom("kysely_migration" as never)
        .select("name" as never)
        .execute()
    ).map((row) => (row as { name: string }).name);
    const expected = Object.keys(migrations);
    if (applied.join() !== expected.join()) {
      throw new Error(
        `The SQLite database has migrations ${applied.join(", ") || "none"}, this code ${expected.join(", ")}: start the server (or npm run db:migrate) on it first, with DATABASE_URL unset`,
      );
    }
    const sourceCounts = await countsOf(source);
    await target.db.transaction().execute(async (trx) => {
      const already = await countsOf(trx);
      const filled = copiedTables.filter((table) => already[table] > 0);
      if (filled.length)
        throw new Error(
          `Postgres at ${postgresTarget(databaseUrl)} already holds rows (${filled.map((table) => `${table}: ${already[table]}`).join(", ")}): copy into an empty database only`,
        );
      for (const table of copiedTables) {
        for (let offset = 0; ; offset += ROWS_PER_INSERT) {
          let page = source.selectFrom(table).selectAll();
          for (const column of keyOf[table]) page = page.orderBy(column as never);
          const rows = await page.limit(ROWS_PER_INSERT).offset(offset).execute();
          if (!rows.length) break;
          await trx
            .insertInto(table)
            .values(rows as never)
            .execute();
        }
      }
      const copied = await countsOf(trx);
      const short = copiedTables.filter((table) => copied[table] !== sourceCounts[table]);
      if (short.length)
        throw new Error(
          `Counts differ after the copy (${short.map((table) => `${table}: ${sourceCounts[table]} → ${copied[table]}`).join(", ")}): nothing was committed`,
        );
    });
    return sourceCounts;
  } finally {
    await source.destroy();
    await target.db.destroy();
  }
}

/** Each table's key: a stable order to page through it. */
const keyOf: Record<Table, string[]> = {
  disclosures: ["version"],
  leads: ["id"],
  lead_attempts: ["lead_id", "number"],
  consents: ["id"],
  consent_revocations: ["id"],
  consent_renewals: ["id"],
  alerts: ["kind", "form"],
  receivers: ["form"],
  alert_states: ["form"],
};
