import { createRequire } from "node:module";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";

/**
 * better-sqlite3 for the Node this process runs on (docs/decisions/0002-sqlite-driver.md).
 * From Node 22 on, version 13, built on Node-API: version 12 aborts the whole
 * process on Node 24.19 and later when the garbage collector finalizes one of
 * its statements (nodejs/node#65446). On Node 20, version 12, installed as
 * better-sqlite3-node20: version 13 crashes there. Loaded by name at run
 * time.
 */
const nodeApi = Number(process.versions.node.split(".")[0]) >= 22;
export const sqliteDriver = nodeApi ? "better-sqlite3" : "better-sqlite3-node20";

// Each name written out: the bundler leaves a require it can read to the runtime (next.config.ts
// lists both). Resolved from the folder the process runs in, as the checkpointer's worker does.
const load = createRequire(path.join(process.cwd(), "package.json"));
export const SQLite: typeof BetterSqlite3 = nodeApi ? load("better-sqlite3") : load("better-sqlite3-node20");
export type SQLiteDatabase = BetterSqlite3.Database;
export type SQLiteStatement = BetterSqlite3.Statement;
