// @ts-check
// The SQLite checkpointer's thread. Stopped by a message, never terminated: a thread ended while it loads the
// driver's native module aborts the whole process on Node 26; a message waits until this file has run.
import { createRequire } from "node:module";
import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";

/** @type {import("./sqlite").CheckpointerSettings} */
const settings = workerData;

// Loaded by name from the folder the server runs in, as the server loads it.
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

parentPort?.once("message", () => {
  clearInterval(rounds);
  db.close();
  parentPort?.close();
});
