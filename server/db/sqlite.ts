import "server-only";
import { chmodSync, mkdirSync } from "node:fs";
import { open as openFile, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { Worker } from "node:worker_threads";
import {
  CompiledQuery,
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type SqliteDialectConfig,
} from "kysely";
import { logEvent } from "@/server/log";
import type { Database } from "./schema";
import { SQLite, sqliteDriver, type SQLiteDatabase, type SQLiteStatement } from "./sqlite-driver";
import type { Store } from "./store";

/*
 * SQLite's write path, tuned for a server whose one JavaScript thread must
 * not wait for the disk (docs/decisions/0008-sqlite-write-path.md):
 * - a commit goes to the WAL at once (synchronous=NORMAL) and is made
 *   durable by an fdatasync of the WAL in the thread pool, shared by every
 *   commit waiting at that moment (groupSync, walSync);
 * - checkpoints run in a worker thread on a connection of their own
 *   (checkpoint-worker.mjs), never on the server's;
 * - transactions take the write lock when they begin (BEGIN IMMEDIATE);
 * - each statement is prepared once and kept.
 */

/** What the checkpointer is told when it starts (checkpoint-worker.mjs reads it as its workerData). */
export type CheckpointerSettings = { file: string; driver: string; everyMs: number; walLimitPages: number };

/** The SQLite file under DATA_DIR. */
export const sqliteFile = (dataDir: string) => path.join(dataDir, "sous.db");

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
      // Kysely's destroy closes the connection and returns; the checkpointer's thread ends after it, and its own close
      // (the last one) copies the WAL in and removes it. Waited for, so that once destroy() resolves nothing of this
      // process touches the database's files: a test removing the folder right after found it not empty.
      override async destroy() {
        await super.destroy();
        await checkpointersStopped();
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
  const workerData: CheckpointerSettings = {
    file,
    driver: sqliteDriver,
    everyMs: CHECKPOINT_EVERY_MS,
    walLimitPages: WAL_LIMIT_PAGES,
  };
  const worker = new Worker(new URL("./checkpoint-worker.mjs", import.meta.url), { workerData });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  database.pragma("wal_autocheckpoint = 0");
  worker.on("error", (error) => {
    logEvent("warn", { event: "checkpointer_failed", message: error.message });
    if (database.open) database.pragma("wal_autocheckpoint = 1000");
  });
  return {
    /**
     * Asks the worker to close its connection and end, and resolves once it has (at once if it ended already,
     * failing). Never worker.terminate() first: ending the thread while it loads the native driver aborts the
     * process on Node 26 (checkpoint-worker.mjs). One that has not ended after STOP_WAIT_MS is terminated.
     */
    stop() {
      worker.postMessage("stop");
      const stuck = setTimeout(() => void worker.terminate(), STOP_WAIT_MS);
      stuck.unref();
      return exited.finally(() => clearTimeout(stuck));
    },
  };
}

/** How long a checkpointer asked to stop may take to end (it ends in milliseconds) before it is terminated. */
const STOP_WAIT_MS = 10_000;

/** What closed databases left to end: checkpointers whose threads still hold a connection, WAL handles being closed. */
const stopping = new Set<Promise<unknown>>();

/**
 * Resolves once every checkpointer of a closed database has ended, its
 * connection with it, and the WAL's sync handle is closed (Kysely's destroy()
 * waits for neither): after this, nothing of this process touches a closed
 * database's file.
 */
export async function checkpointersStopped() {
  await Promise.all([...stopping]);
}

/**
 * better-sqlite3 as Kysely's SQLite dialect sees it: each statement prepared
 * once; on close, the checkpointer stopped and the WAL's sync handle closed.
 */
function dialectDatabase(database: SQLiteDatabase, checkpointer: { stop(): Promise<void> }, wal: WalSync) {
  const statements = new Map<string, SQLiteStatement>();
  return {
    close() {
      const stopped = Promise.all([checkpointer.stop(), wal.close()]).finally(() => stopping.delete(stopped));
      stopping.add(stopped);
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

type WalSync = ReturnType<typeof walSync>;

/**
 * What synchronous=FULL does after each commit, in the thread pool: an
 * fdatasync of the WAL (the same file while a connection is open), through
 * one handle opened at the first commit. `close` closes it with the database:
 * a handle left to the garbage collector is a warning on Node 24 and an
 * uncaught error on Node 26.
 */
function walSync(walFile: string) {
  let handle: Promise<FileHandle> | undefined;
  return {
    durable: groupSync(async () => (await (handle ??= openFile(walFile, "r"))).datasync()),
    async close() {
      const opened = handle;
      handle = undefined;
      // A handle that never opened (its commit was told why) has nothing to close.
      await (await opened?.catch(() => undefined))?.close();
    },
  };
}

/**
 * Makes a folder and the missing ones above it, for the server's user only.
 * Not mkdirSync's `recursive`: where the kernel answers ENOENT for a folder
 * whose parent exists (under /proc), Node's recursive mkdir retries forever
 * and the server hangs at start instead of refusing DATA_DIR.
 */
function makeFolder(dir: string) {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    const parent = path.dirname(dir);
    if (code !== "ENOENT" || parent === dir) throw error;
    makeFolder(parent);
    mkdirSync(dir, { mode: 0o700 });
  }
}

/** SQLite at DATA_DIR/sous.db, on the write path above. */
export function openSqlite(dataDir: string): Store {
  const file = sqliteFile(dataDir);
  makeFolder(path.resolve(dataDir));
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
  const wal = walSync(`${file}-wal`);
  return {
    db: new Kysely<Database>({
      dialect: new SqliteWriterDialect({
        database: dialectDatabase(database, startCheckpointer(file, database), wal),
      }),
    }),
    engine: "sqlite",
    durable: wal.durable,
  };
}
