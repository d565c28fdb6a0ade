import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

/**
 * better-sqlite3 for the Node this process runs on (docs/decisions/0002-sqlite-driver.md).
 * From Node 22 on, version 13, built on Node-API: version 12 aborts the whole
 * process on Node 24.19 and later when the garbage collector finalizes one of
 * its statements (nodejs/node#65446). On Node 20, version 12, installed as
 * better-sqlite3-node20: version 13 crashes there. Loaded by name at run
 * time, which also keeps the bundler away from the native module.
 */
export const sqliteDriver = Number(process.versions.node.split(".")[0]) >= 22 ? "better-sqlite3" : "better-sqlite3-node20";

export const SQLite = createRequire(import.meta.url)(sqliteDriver) as typeof BetterSqlite3;
export type SQLiteDatabase = BetterSqlite3.Database;
export type SQLiteStatement = BetterSqlite3.Statement;
