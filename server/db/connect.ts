import "server-only";
import { chmodSync, mkdirSync } from "node:fs";
import { open as openFile, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type SqliteDialectConfig,
} from "kysely";
import pg from "pg";
import { EnvError, type ServerEnv } from "@/server/env";
import { logEvent, messageOf } from "@/server/log";
import { processWide } from "@/server/process-wide";
import { migrations } from "./migrations";
import { SQLite, sqliteDriver, type SQLiteDatabase, type SQLiteStatement } from "./sqlite-driver";
import type { Database } from "./schema";

export type Engine = "sqlite" | "postgres";
export type Store = {
  db: Kysely<Database>;
  engine: Engine;
  /** Resolves once every commit made so far is on disk. */
  durable(): Promise<void>;
};
type Settings = Pick<ServerEnv, "DATA_DIR" | "DATABASE_URL">;

/** The SQLite file under DATA_DIR. */
export const sqliteFile = (dataDir: string) => path.join(dataDir, "sous.db");

/** Where a Postgres URL points, for messages: never its user or password. */
export const postgresTarget = (url: string) => {
  const { host, pathname } = new URL(url);
  return `${host}${pathname}`;
};

/**
 * SQLite as Kysely speaks it, with two changes: a transaction takes the write
 * lock when it begins (BEGIN IMMEDIATE), so two processes queue for it
 * through the busy timeout instead of one failing when it first writes; and
 * migrations run inside one, which SQLite allows, so the second of two
 * servers starting at once finds the first one's work done.
 */
class SqliteWriterDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }
  override createDriver() {
    return new (class extends SqliteDriver {
      override async beginTransaction(connection: DatabaseConnection) {
        await connection.executeQuery(CompiledQuery.raw("begin immediate"));
      }
    })(this.settings);
  }
  override createAdapter() {
    return new (class extends SqliteAdapter {
      override get supportsTransactionalDdl() {
        return true;
      }
    })();
  }
}

// Prepared statements kept per SQL text: preparing costs about as much as a small query.
const STATEMENTS_KEPT = 200;

// How often the checkpointer copies the WAL into the database file, and the
// WAL's size (in 4 KiB pages, 16 MiB) past which it empties it.
const CHECKPOINT_EVERY_MS = 1_000;
const WAL_LIMIT_PAGES = 4_096;

/**
 * Checkpoints in a worker thread, on a connection of its own: copying the WAL
 * into the database file and syncing both is the one slow write SQLite
 * makes, and done by the connection that commits it stalls every visitor
 * for tens of milliseconds every few hundred commits. PASSIVE never waits
 * for a reader or a writer. If the worker fails, the server checkpoints as
 * SQLite does by default.
 */
function startCheckpointer(file: string, database: SQLiteDatabase) {
  // The driver is required by name inside the worker's own code, from the
  // folder the server runs in: the bundler would rewrite a name it can see.
  const worker = new Worker(
    `const { workerData } = require("node:worker_threads");
     const db = new (require(workerData.driver))(workerData.file);
     db.pragma("busy_timeout = 5000");
     setInterval(() => {
       try {
         const [{ log }] = db.pragma("wal_checkpoint(PASSIVE)");
         // Under a steady stream of commits the WAL is never found fully copied, and grows:
         // past the limit, writers wait a moment while it is copied and emptied.
         if (log > workerData.walLimitPages) db.pragma("wal_checkpoint(TRUNCATE)");
       } catch {
         // Busy past the timeout, or a disk error: the next round tries again.
       }
     }, workerData.everyMs);`,
    {
      eval: true,
      workerData: { file, driver: sqliteDriver, everyMs: CHECKPOINT_EVERY_MS, walLimitPages: WAL_LIMIT_PAGES },
    },
  );
  worker.unref();
  database.pragma("wal_autocheckpoint = 0");
  worker.on("error", (error) => {
    logEvent("warn", { event: "checkpointer_failed", message: error.message });
    if (database.open) database.pragma("wal_autocheckpoint = 1000");
  });
  return worker;
}

/** better-sqlite3 as Kysely's SQLite dialect sees it: each statement prepared once, and the checkpointer stopped on close. */
function dialectDatabase(database: SQLiteDatabase, checkpointer: Worker) {
  const statements = new Map<string, SQLiteStatement>();
  return {
    close() {
      void checkpointer.terminate();
      database.close();
    },
    prepare(text: string) {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= STATEMENTS_KEPT) statements.clear();
        statements.set(text, (statement = database.prepare(text)));
      }
      return statement;
    },
  };
}

/**
 * Runs `sync` for every caller, sharing runs: a caller that arrives while a
 * run is under way (which may have started before the caller's commit) waits
 * for the next run, and every caller arriving meanwhile shares that one.
 */
export function groupSync(sync: () => Promise<void>) {
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const run = () => (running = sync().finally(() => (running = undefined)));
  return () => {
    if (!running) return run();
    next ??= running
      .catch(() => {})
      .then(() => {
        next = undefined;
        return run();
      });
    return next;
  };
}

/** What synchronous=FULL does after each commit, in the thread pool: an fdatasync of the WAL (the same file while a connection is open). */
function walSync(walFile: string) {
  let handle: Promise<FileHandle> | undefined;
  return groupSync(async () => (await (handle ??= openFile(walFile, "r"))).datasync());
}

function openSqlite(dataDir: string): Store {
  const file = sqliteFile(dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const database = new SQLite(file);
  // The file holds visitors' details: the server's user only. SQLite gives
  // its -wal and -shm files the same mode.
  chmodSync(file, 0o600);
  // WAL lets readers and one writer work at once. A commit is written to the
  // WAL at once and synced by durable() below, off the server's one
  // JavaScript thread, as checkpoints are (startCheckpointer): with
  // synchronous=FULL every visitor would wait for the disk on that thread. A
  // second process waits for the write lock instead of failing.
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  database.pragma("busy_timeout = 5000");
  database.pragma("foreign_keys = ON");
  return {
    db: new Kysely<Database>({
      dialect: new SqliteWriterDialect({ database: dialectDatabase(database, startCheckpointer(file, database)) }),
    }),
    engine: "sqlite",
    durable: walSync(`${file}-wal`),
  };
}

function openPostgres(url: string): Store {
  const int8 = pg.types.builtins.INT8;
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    // BIGINT columns hold milliseconds, well inside a double's exact range.
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

/**
 * Runs the committed migrations, in a transaction: Postgres serialises two
 * servers starting at once with an advisory lock, SQLite with its write lock.
 * One that waited longer than the busy timeout tries again.
 */
async function migrate({ db }: Store) {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  for (let attempt = 1; ; attempt += 1) {
    const { error } = await migrator.migrateToLatest();
    if (!error) return;
    if (!busy(error) || attempt >= 20) throw error;
    await sleep(50 + Math.random() * 100);
  }
}

/** A write that commits nothing new: proves the database takes writes now (not read-only, reachable). */
async function probeWrite({ db }: Store) {
  await db.transaction().execute((trx) => sql`update kysely_migration_lock set is_locked = is_locked`.execute(trx));
}

/** Opens, migrates and checks a database of its own: `database()` keeps one per process. */
export async function connect(env: Settings): Promise<Store> {
  const postgres = Boolean(env.DATABASE_URL);
  let store: Store | undefined;
  try {
    store = env.DATABASE_URL ? openPostgres(env.DATABASE_URL) : openSqlite(env.DATA_DIR);
    await migrate(store);
    await probeWrite(store);
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

/**
 * The database for these settings, opened and migrated once per process:
 * Postgres when DATABASE_URL is set, else SQLite at DATA_DIR/sous.db. Throws
 * an EnvError naming the setting when it cannot be used; a later call tries again.
 */
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

/** Closes every database this process opened (the operator's commands and the tests end with it). */
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
}
