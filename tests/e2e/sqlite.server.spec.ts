import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startNextServer } from "../support/next-server";
import { expect, test } from "./fixtures";

// The SQLite checkpointer is a worker thread started from a file of its own
// (server/db/checkpoint-worker.mjs), which the build must carry: in the built
// server, the database file receives what the WAL holds, though the server's
// own connection never checkpoints.
test("the built server's checkpointer copies the WAL into the database file", async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), "sous-sqlite-"));
  const server = await startNextServer({ DATA_DIR: dataDir });
  try {
    await expect.poll(() => server.output()).toContain('"event":"database_ready"');
    // The migrations' tables went to the WAL; only the checkpointer moves them into sous.db.
    const size = async (name: string) => (await stat(path.join(dataDir, name))).size;
    await expect.poll(() => size("sous.db"), { timeout: 10_000 }).toBeGreaterThan(16 * 4096);
    expect(await size("sous.db-wal")).toBeGreaterThan(0);
    expect(server.output()).not.toContain("checkpointer_failed");
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});
