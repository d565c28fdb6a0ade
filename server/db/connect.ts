import "server-only";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Kysely, Migrator, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { parse as parseConnectionString } from "pg-connection-string";
import { EnvError, type ServerEnv } from "@/server/env";
import { logEvent, messageOf } from "@/server/log";
import { processWide } from "@/server/process-wide";
import { migrations, specs } from "./migrations";
import type { Database } from "./schema";
import { checkpointersStopped, openSqlite, sqliteFile } from "./sqlite";
import type { Store } from "./store";

export { inTransaction, type Engine, type Store } from "./store";
type Settings = Pick<ServerEnv, "DATA_DIR" | "DATABASE_URL">;

export { sqliteFile } from "./sqlite";

/** For messages: never its user or password. */
export const postgresTarget = (url: string) => {
  const { host, port, database } = parseConnectionString(url);
  return `${host ?? ""}${port ? `:${port}` : ""}/${database ?? ""}`;
};

export function openPostgres(url: string): Store {
  const int8 = pg.types.builtins.INT8;
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    types: {
      getTypeParser: ((oid: number, format?: "text") =>
        oid === int8 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection that breaks must not crash the server; the next query reconnects.
  pool.on("error", (error) => logEvent("warn", { event: "database_connection_lost", message: error.message }));
  // Postgres answers a commit once it is durable (synchronous_commit on, its default).
  return {
    db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
    engine: "postgres",
    durable: async () => {},
  };
}

const busy = (error: unknown) =>
  /SQLITE_BUSY|database is locked/.test(`${(error as { code?: string })?.code} ${messageOf(error)}`);

/** Postgres serialises two servers starting at once with an advisory lock, SQLite with its write lock. */
async function migrate({ db }: Store) {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  for (let attempt = 1; ; attempt += 1) {
    const { error } = await migrator.migrateToLatest();
    if (!error) return;
    if (!busy(error) || attempt >= 20) throw error;
    await sleep(50 + Math.random() * 100);
  }
}

/** Proves the database takes writes now: not read-only, reachable. */
async function probeWrite({ db }: Store) {
  await db.transaction().execute((trx) => sql`update kysely_migration_lock set is_locked = is_locked`.execute(trx));
}

/** Made at start when missing: the migration ran on a host without pg_trgm, which may have it now (decision 0017). */
async function searchIndex(store: Store) {
  if (store.engine !== "postgres") return;
  const present = async () =>
    (
      await sql`select 1 from pg_indexes where schemaname = current_schema() and indexname = 'leads_kept_values'`.execute(
        store.db,
      )
    ).rows.length > 0;
  if (await present()) return;
  for (const { sql: statement } of specs["0018-one-outbox"]!.postgres!) await sql.raw(statement).execute(store.db);
  if (await present()) return;
  const { rows } = await sql<{ installed: boolean }>`select exists (
    select 1 from pg_available_extensions where name = 'pg_trgm'
  ) as installed`.execute(store.db);
  logEvent("warn", {
    event: "search_index_missing",
    index: "leads_kept_values",
    reason: rows[0]?.installed ? "pg_trgm may not be created by this role" : "pg_trgm is not installed on this host",
  });
}

export async function connect(env: Settings): Promise<Store> {
  const postgres = Boolean(env.DATABASE_URL);
  let store: Store | undefined;
  try {
    store = env.DATABASE_URL ? openPostgres(env.DATABASE_URL) : openSqlite(env.DATA_DIR);
    await migrate(store);
    await probeWrite(store);
    await searchIndex(store);
    return store;
  } catch (error) {
    await store?.db.destroy().catch(() => {});
    const problem = postgres
      ? `DATABASE_URL: Postgres at ${postgresTarget(env.DATABASE_URL!)} cannot be used: ${messageOf(error)}`
      : `DATA_DIR: ${path.resolve(env.DATA_DIR)} cannot hold the database: ${messageOf(error)}`;
    throw new EnvError([problem]);
  }
}

// Process-wide: instrumentation.ts and the routes are bundled apart, and must share one pool.
const opened = processWide("databases", () => new Map<string, Promise<Store>>());

export function database(env: Settings): Promise<Store> {
  const key = env.DATABASE_URL ?? path.resolve(sqliteFile(env.DATA_DIR));
  let found = opened.get(key);
  if (!found) {
    found = connect(env);
    found.catch(() => opened.delete(key));
    opened.set(key, found);
  }
  return found;
}

export async function closeDatabases() {
  const stores = [...opened.values()];
  opened.clear();
  await Promise.all(
    stores.map((store) =>
      store.then(
        ({ db }) => db.destroy(),
        () => {},
      ),
    ),
  );
  await checkpointersStopped();
}
