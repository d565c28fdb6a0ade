// @ts-check
/**
 * The SQLite checkpointer, in a worker thread of its own (server/db/sqlite.ts
 * starts it with its CheckpointerSettings as workerData). Every `everyMs` it
 * copies the WAL into the database file on a connection of its own: PASSIVE
 * never waits for a reader or a writer. Under a steady stream of commits the
 * WAL is never found fully copied, and grows: past `walLimitPages`, writers
 * wait a moment while it is copied and emptied (TRUNCATE). An error thrown
 * here (the driver missing, the file unopenable) ends the worker, and the
 * server checkpoints as SQLite does by default.
 *
 * It is stopped by a message, never terminated: a thread ended while it loads
 * the driver's native module aborts the whole process on Node 26 (FATAL ERROR
 * napi_get_last_error_info, SIGABRT), which a database opened and closed at
 * once did, one unit run in 25. A message waits on the port until this file
 * has run, so the stop comes once the driver is loaded.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";

/** @type {import("./sqlite").CheckpointerSettings} */
const settings = workerData;

// The driver the server chose for this Node (sqlite-driver.ts), loaded by name
// from the folder the server runs in, as the server loads it.
const load = createRequire(path.join(process.cwd(), "package.json"));
/** @type {typeof import("better-sqlite3")} */
const SQLite = load(settings.driver);
const db = new SQLite(settings.file);
db.pragma("busy_timeout = 5000");

const rounds = setInterval(() => {
  try {
    const [copied] = /** @type {{ log: number }[]} */ (db.pragma("wal_checkpoint(PASSIVE)"));
    if (copied && copied.log > settings.walLimitPages) db.pragma("wal_checkpoint(TRUNCATE)");
  } catch {
    // Busy past the timeout, or a disk error: the next round tries again.
  }
}, settings.everyMs);

// The server's close (sqlite.ts): the connection closed, nothing left to run, the thread ends.
parentPort?.once("message", () => {
  clearInterval(rounds);
  db.close();
  parentPort?.close();
});
