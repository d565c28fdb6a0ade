import { postgresTarget, sqliteFile } from "@/server/db/connect";
import type { ServerEnv } from "@/server/env";
import path from "node:path";

/** Which database a command reads, for its first line: never the password. */
export function databaseLine(env: Pick<ServerEnv, "DATABASE_URL" | "DATA_DIR">) {
  return env.DATABASE_URL
    ? `postgres at ${postgresTarget(env.DATABASE_URL)}`
    : `sqlite at ${path.resolve(sqliteFile(env.DATA_DIR))}`;
}
