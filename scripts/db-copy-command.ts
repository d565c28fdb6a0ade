// `npm run db:copy`: everything kept, from SQLite to DATABASE_URL's Postgres (or back with --to-sqlite), the tables
// read from the migrations. The source is only read; the copy is one transaction, its counts compared before it
// commits; a target that holds rows or an unknown table is refused (docs/operating.md, "Moving to Postgres").
import { existsSync } from "node:fs";
import path from "node:path";
import { Kysely, SqliteDialect } from "kysely";
import { connect, openPostgres, postgresTarget, sqliteFile } from "@/server/db/connect";
import { migrations, specs } from "@/server/db/migrations";
import { specifiedTables } from "@/server/db/migrations/spec";
import type { Database } from "@/server/db/schema";
import { SQLite } from "@/server/db/sqlite-driver";

/** One side of a copy: the SQLite file under a folder, or a Postgres. */
export type Side = { engine: "sqlite"; dataDir: string } | { engine: "postgres"; url: string };

/** Every table the migrations create, in the order a copy fills them: a lead before its attempts. */
export const copiedTables = specifiedTables(Object.values(specs));

/** Rows copied, per table, in the order they were copied. */
export type CopyResult = Record<string, number>;

// Well under Postgres's 65,535 bound parameters, and SQLite's 32,766, for the widest table.
const ROWS_PER_INSERT = 500;

// Tables are named at run time here, from the specs: the schema's types cannot follow them.
type AnyDb = Kysely<Record<string, Record<string, unknown>>>;

const nameOf = (side: Side) =>
  side.engine === "sqlite"
    ? `the SQLite database at ${path.resolve(sqliteFile(side.dataDir))}`
    : `Postgres at ${postgresTarget(side.url)}`;

/** The source, opened to be read as it is: not migrated, a SQLite file read-only. */
function openSource(side: Side): Kysely<Database> {
  if (side.engine === "postgres") return openPostgres(side.url).db;
  const file = sqliteFile(side.dataDir);
  if (!existsSync(file))
    throw new Error(`No SQLite database at ${path.resolve(file)}: set DATA_DIR to the folder that holds sous.db`);
  return new Kysely<Database>({
    dialect: new SqliteDialect({ database: new SQLite(file, { readonly: true, fileMustExist: true }) }),
  });
}

/** The target, opened and migrated as the server would. */
const openTarget = (side: Side) =>
  connect(
    side.engine === "sqlite"
      ? { DATA_DIR: side.dataDir, DATABASE_URL: undefined }
      : { DATA_DIR: ".", DATABASE_URL: side.url },
  );

async function countsOf(db: Kysely<Database>) {
  const counts: CopyResult = {};
  for (const { name } of copiedTables) {
    const row = await (db as unknown as AnyDb)
      .selectFrom(name)
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .executeTakeFirstOrThrow();
    counts[name] = Number(row.count);
  }
  return counts;
}

/** The tables a database holds that no migration creates (Kysely's own left aside): a copy would leave them behind. */
async function unknownTables(db: Kysely<Database>) {
  const known = new Set(copiedTables.map(({ name }) => name));
  return (await db.introspection.getTables()).map(({ name }) => name).filter((name) => !known.has(name));
}

/** Every row of one table, in its key's order, a page at a time. */
async function* rowsOf(db: Kysely<Database>, { name, key }: (typeof copiedTables)[number]) {
  for (let offset = 0; ; offset += ROWS_PER_INSERT) {
    let page = (db as unknown as AnyDb).selectFrom(name).selectAll();
    for (const column of key) page = page.orderBy(column);
    const rows = await page.limit(ROWS_PER_INSERT).offset(offset).execute();
    if (!rows.length) return;
    yield rows;
  }
}

/** Copies every table of `from` into `to`, which must hold no rows; resolves to the rows copied per table. */
export async function copyDatabase({ from, to }: { from: Side; to: Side }): Promise<CopyResult> {
  if (from.engine === to.engine) throw new Error("db:copy copies between SQLite and Postgres: both sides are the same");
  const source = openSource(from);
  try {
    const applied = (
      await (source as unknown as AnyDb).selectFrom("kysely_migration").select("name").orderBy("name").execute()
    ).map((row) => String(row.name));
    const expected = Object.keys(migrations);
    if (applied.join() !== expected.join()) {
      throw new Error(
        `${nameOf(from)} has migrations ${applied.join(", ") || "none"}, this code ${expected.join(", ")}: start the server (or npm run db:migrate) on it first`,
      );
    }
    const strangers = await unknownTables(source);
    if (strangers.length)
      throw new Error(
        `${nameOf(from)} has tables no migration creates (${strangers.join(", ")}): a copy would leave them behind, so nothing was copied`,
      );
    const target = await openTarget(to);
    try {
      const theirs = await unknownTables(target.db);
      if (theirs.length)
        throw new Error(
          `${nameOf(to)} has tables no migration creates (${theirs.join(", ")}): copy into a database of this site only`,
        );
      const sourceCounts = await countsOf(source);
      await target.db.transaction().execute(async (trx) => {
        const already = await countsOf(trx);
        const filled = copiedTables.filter(({ name }) => already[name]! > 0);
        if (filled.length)
          throw new Error(
            `${nameOf(to)} already holds rows (${filled.map(({ name }) => `${name}: ${already[name]}`).join(", ")}): copy into an empty database only`,
          );
        for (const table of copiedTables)
          for await (const rows of rowsOf(source, table))
            await (trx as unknown as AnyDb).insertInto(table.name).values(rows).execute();
        const copied = await countsOf(trx);
        const short = copiedTables.filter(({ name }) => copied[name] !== sourceCounts[name]);
        if (short.length)
          throw new Error(
            `Counts differ after the copy (${short.map(({ name }) => `${name}: ${sourceCounts[name]} → ${copied[name]}`).join(", ")}): nothing was committed`,
          );
      });
      await target.durable();
      return sourceCounts;
    } finally {
      await target.db.destroy();
    }
  } finally {
    await source.destroy();
  }
}
