import { mkdtemp, rm, stat, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { describe, expect, it, vi } from "vitest";
import { setupBothEngines } from "@/tests/support/both-engines";
import { closeDatabases, connect, database, groupSync, postgresTarget } from "./connect";

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
  it("is readable by the server's user only, in WAL mode", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    const store = await connect({ DATA_DIR: dir, DATABASE_URL: undefined });
    try {
      expect(store.engine).toBe("sqlite");
      expect((await stat(path.join(dir, "sous.db"))).mode & 0o777).toBe(0o600);
      const { rows } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
      expect(rows).toStrictEqual([{ journal_mode: "wal" }]);
      await store.db.insertInto("leads").values({ id: "msg_1", form: "waitlist", dedupe_key: null, payload: "{}", state: "held", created_at: 1, next_attempt_at: 1 }).execute();
      await expect(store.durable()).resolves.toBeUndefined();
    } finally {
      await store.db.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("is tried again after it could not be opened", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    const blocker = path.join(dir, "data");
    await writeFile(blocker, "a file where the folder should be");
    const settings = { DATA_DIR: blocker, DATABASE_URL: undefined };
    await expect(database(settings)).rejects.toThrow(/DATA_DIR: .* cannot hold the database/);
    await unlink(blocker);
    await expect(database(settings)).resolves.toMatchObject({ engine: "sqlite" });
    await closeDatabases();
    await rm(dir, { recursive: true, force: true });
  });
});

describe("a Postgres connection that breaks while idle", () => {
  const open = setupBothEngines();

  it("is logged for the operator, not thrown, and the next query connects again", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const store = await open("postgres");
    // One idle connection in the server's pool.
    await sql`select 1`.execute(store.db);
    const other = await open("postgres");
    const { rows } = await sql<{ ended: boolean }>`
      select pg_terminate_backend(pid) as ended from pg_stat_activity
      where pid <> pg_backend_pid() and datname = current_database() and backend_type = 'client backend'`.execute(other.db);
    expect(rows.length).toBeGreaterThanOrEqual(1);

    await vi.waitFor(() =>
      expect(warn.mock.calls.map((call) => JSON.parse(String(call[0])))).toContainEqual(
        expect.objectContaining({ level: "warn", event: "database_connection_lost", message: expect.stringContaining("terminating connection") }),
      ),
    );
    await expect(sql<{ one: number }>`select 1 as one`.execute(store.db)).resolves.toMatchObject({ rows: [{ one: 1 }] });
  });
});
