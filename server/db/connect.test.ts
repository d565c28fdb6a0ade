import { mkdtemp, rm, stat, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connect, database, groupSync, postgresTarget } from "./connect";

describe("groupSync", () => {
  it("runs once for a lone caller, and again for the next", async () => {
    let runs = 0;
    const durable = groupSync(async () => {
      runs += 1;
    });
    await durable();
    await durable();
    expect(runs).toBe(2);
  });

  it("makes callers that arrive during a run wait for one more run, which they share", async () => {
    const started: (() => void)[] = [];
    const durable = groupSync(() => new Promise<void>((resolve) => started.push(resolve)));
    const first = durable();
    const laters = [durable(), durable(), durable()];
    expect(started).toHaveLength(1);
    let latersDone = false;
    void Promise.all(laters).then(() => (latersDone = true));
    started[0]!();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 0));
    // The first run may have begun before their commits: they wait for a second one.
    expect(started).toHaveLength(2);
    expect(latersDone).toBe(false);
    started[1]!();
    await Promise.all(laters);
    expect(started).toHaveLength(2);
  });

  it("passes a failed run on to its callers, and the next caller starts afresh", async () => {
    let fail = true;
    const durable = groupSync(async () => {
      if (fail) throw new Error("EIO");
    });
    await expect(durable()).rejects.toThrow("EIO");
    fail = false;
    await expect(durable()).resolves.toBeUndefined();
  });
});

describe("postgresTarget", () => {
  it("names the host and database, never the user or password", () => {
    expect(postgresTarget("postgres://sous:s3cret@db.example.com:5432/leads?sslmode=require")).toBe("db.example.com:5432/leads");
  });
});

describe("the SQLite database", () => {
  it("is readable by the server's user only, and its WAL is copied into it", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    const store = await connect({ DATA_DIR: dir, DATABASE_URL: undefined });
    try {
      expect(store.engine).toBe("sqlite");
      const file = path.join(dir, "sous.db");
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const before = (await stat(file)).size;
      // More than SQLite's own checkpoint threshold (1,000 pages): the checkpoint
      // worker copies it, or, where the worker cannot run, SQLite itself does.
      const payload = "x".repeat(4_000);
      const rows = Array.from({ length: 1_200 }, (_, i) => ({ id: `msg_${i}`, form: "waitlist", dedupe_key: null, payload, state: "held" as const, created_at: i, next_attempt_at: i }));
      for (let i = 0; i < rows.length; i += 100) await store.db.insertInto("leads").values(rows.slice(i, i + 100)).execute();
      await store.durable();
      // Each look commits a little more: where SQLite checkpoints itself, it does so after a commit.
      const grown = async () => {
        await store.db.updateTable("leads").set({ attempts: 0 }).where("id", "=", "msg_0").execute();
        return (await stat(file)).size;
      };
      await expect.poll(grown, { timeout: 10_000 }).toBeGreaterThan(before + 1_200 * 4_000);
    } finally {
      await store.db.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  }, 20_000);

  it("is tried again after it could not be opened", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    const blocker = path.join(dir, "data");
    await writeFile(blocker, "a file where the folder should be");
    const settings = { DATA_DIR: blocker, DATABASE_URL: undefined };
    await expect(database(settings)).rejects.toThrow(/DATA_DIR: .* cannot hold the database/);
    await unlink(blocker);
    await expect(database(settings)).resolves.toMatchObject({ engine: "sqlite" });
    await rm(dir, { recursive: true, force: true });
  });
});
