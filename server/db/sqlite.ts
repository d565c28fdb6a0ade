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

// SQLite's write path keeps the server's one JavaScript thread off the disk: commits synced in the
// thread pool, shared; checkpoints in a worker; write lock taken at BEGIN (decision 0008).

export type CheckpointerSettings = { file: string; driver: string; everyMs: number; walLimitPages: number };

export const sqliteFile = (dataDir: string) => path.join(dataDir, "sous.db");

/** A transaction takes the write lock when it begins, so two processes queue through the busy timeout instead of one failing at its first write. */
class SqliteWriterDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }
  override createDriver() {
    return new (class extends SqliteDriver {
      override async beginTransaction(connection: DatabaseConnection) {
        await connection.executeQuery(CompiledQuery.raw("begin immediate"));
      }
      // Waits for the checkpointer's close, which copies the WAL in and removes it: once destroy() resolves, nothing of
      // this process touches the database's files.
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

// Preparing costs about as much as a small query.
const STATEMENTS_KEPT = 200;

const CHECKPOINT_EVERY_MS = 1_000;
const WAL_LIMIT_PAGES = 4_096;

/** In a worker thread on its own connection: done by the committing connection, a checkpoint stalls every visitor for tens of milliseconds. */
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
    // Never terminate() first: ending the thread while it loads the native driver aborts the process on Node 26.
    stop() {
      worker.postMessage("stop");
      // Held until the thread ends: an unref'd wait let a process whose last step closed the database exit mid-await.
      const stuck = setTimeout(() => void worker.terminate(), STOP_WAIT_MS);
      return exited.finally(() => clearTimeout(stuck));
    },
  };
}

const STOP_WAIT_MS = 10_000;

const stopping = new Set<Promise<unknown>>();

/** Once resolved, nothing of this process touches a closed database's file (Kysely's destroy() waits for neither). */
export async function checkpointersStopped() {
  await Promise.all([...stopping]);
}

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

/** A caller arriving while a run is under way (begun, perhaps, before its commit) waits for the next run, shared by all who arrive meanwhile. */
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

/** synchronous=FULL's fdatasync of the WAL, in the thread pool. Closed with the database: a handle left to the garbage collector is an uncaught error on Node 26. */
function walSync(walFile: string) {
  let handle: Promise<FileHandle> | undefined;
  return {
    durable: groupSync(async () => (await (handle ??= openFile(walFile, "r"))).datasync()),
    async close() {
      const opened = handle;
      handle = undefined;
      await (await opened?.catch(() => undefined))?.close();
    },
  };
}

/** Not mkdirSync's `recursive`: where the kernel answers ENOENT under an existing parent (/proc), it retries forever and the server hangs at start. */
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

export function openSqlite(dataDir: string): Store {
  const file = sqliteFile(dataDir);
  makeFolder(path.resolve(dataDir));
  const database = new SQLite(file);
  // The file holds visitors' details: the server's user only (SQLite gives -wal and -shm the same mode).
  chmodSync(file, 0o600);
  // A commit is written to the WAL at once and synced by durable(), off the JavaScript thread.
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
