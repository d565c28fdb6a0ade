import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { connect, type Store } from "@/server/db/connect";
import { startPostgresServer, type PostgresServer } from "./postgres-server";

export type Engine = "sqlite" | "postgres";

/**
 * One SQLite file and one Postgres server for the tests of a file, started
 * before them and removed after. `open` gives a connection of its own: two of
 * them on one database are two servers.
 */
export function setupBothEngines() {
  let dir: string;
  let postgres: PostgresServer;
  const opened: Store[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "sous-engines-"));
    postgres = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(opened.map((store) => store.db.destroy()));
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });
  return async function open(engine: Engine) {
    const store = await connect(
      engine === "sqlite" ? { DATA_DIR: dir, DATABASE_URL: undefined } : { DATA_DIR: dir, DATABASE_URL: postgres.url },
    );
    opened.push(store);
    return store;
  };
}
