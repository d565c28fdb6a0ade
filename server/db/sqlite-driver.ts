import { createRequire } from "node:module";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";

// better-sqlite3 13 (Node-API) from Node 22 on: 12 aborts the process on Node 24.19+ (nodejs/node#65446). On Node 20,
// 12 as better-sqlite3-node20: 13 crashes there (decision 0002).
const nodeApi = Number(process.versions.node.split(".")[0]) >= 22;
export const sqliteDriver = nodeApi ? "better-sqlite3" : "better-sqlite3-node20";

// Each name written out: the bundler leaves a require it can read to the runtime (next.config.ts
// lists both). Resolved from the folder the process runs in, as the checkpointer's worker does.
const load = createRequire(path.join(process.cwd(), "package.json"));
export const SQLite: typeof BetterSqlite3 = nodeApi ? load("better-sqlite3") : load("better-sqlite3-node20");
export type SQLiteDatabase = BetterSqlite3.Database;
export type SQLiteStatement = BetterSqlite3.Statement;
