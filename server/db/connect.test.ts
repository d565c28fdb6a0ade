import { spawnSync } from "node:child_process";
import { readlinkSync } from "node:fs";
import { mkdtemp, readdir, rm, stat, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { SQLite } from "./sqlite-driver";
import type * as SqliteDriverModule from "./sqlite-driver";
import type * as SqliteModule from "./sqlite";
import { sql } from "kysely";
import { describe, expect, it, vi } from "vitest";
import { setupBothEngines } from "@/tests/support/both-engines";
import { readEnv } from "@/server/env";
import { withEnv } from "@/tests/support/check-schema";
import { startPostgresServer } from "@/tests/support/postgres-server";
import { closeDatabases, connect, database, postgresTarget } from "./connect";
import { checkpointersStopped, groupSync } from "./sqlite";

describe("groupSync", () => {
  it("runs once for a lone caller, and again, at once, for the next", async () => {
    let runs = 0;
    const durable = groupSync(async () => {
      runs += 1;
    });
    await durable();
    const second = durable();
    // Nothing is running: the next caller's run starts when it calls, not after a turn.
    expect(runs).toBe(2);
    await second;
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
    expect(postgresTarget("postgres://sous:s3cret@db.example.com:5432/leads?sslmode=require")).toBe(
      "db.example.com:5432/leads",
    );
    expect(postgresTarget("postgresql://sous:s3cret@/leads?host=/run/postgresql")).toBe("/run/postgresql/leads");
  });
});

/** A lead to commit, held for want of a webhook URL. */
const heldLead = {
  id: "msg_1",
  receiver: "waitlist",
  dedupe_key: null,
  payload: "{}",
  state: "held" as const,
  created_at: 1,
  next_attempt_at: 1,
};

/** What this process's open descriptors point at, under `prefix` (a database file: its WAL and index too). */
async function descriptorsOn(prefix: string) {
  return (await readdir("/proc/self/fd"))
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return "";
      }
    })
    .filter((target) => target.startsWith(prefix));
}

describe("the SQLite database", () => {
  it("is readable by the server's user only, in WAL mode", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    const store = await connect({ DATA_DIR: dir, DATABASE_URL: undefined });
    try {
      expect(store.engine).toBe("sqlite");
      expect((await stat(path.join(dir, "sous.db"))).mode & 0o777).toBe(0o600);
      const { rows } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
      expect(rows).toStrictEqual([{ journal_mode: "wal" }]);
      await store.db.insertInto("outbox").values(heldLead).execute();
      await expect(store.durable()).resolves.toBeUndefined();
    } finally {
      await store.db.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("commits to the WAL without waiting for the disk, waits 5 s for a lock, keeps foreign keys, and leaves checkpoints to its worker", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    const store = await connect({ DATA_DIR: dir, DATABASE_URL: undefined });
    try {
      const pragma = async (name: string) =>
        Object.values((await sql.raw(`pragma ${name}`).execute(store.db)).rows[0] as object)[0];
      expect([
        await pragma("synchronous"),
        await pragma("busy_timeout"),
        await pragma("foreign_keys"),
        await pragma("wal_autocheckpoint"),
      ]).toStrictEqual([1, 5000, 1, 0]);

      // The server's connection never checkpoints: the database file grows only when the worker copies the WAL in.
      const size = async () => (await stat(path.join(dir, "sous.db"))).size;
      const row = (n: number) => ({
        id: `msg_${n}`,
        receiver: "waitlist",
        dedupe_key: null,
        payload: "x".repeat(2_000),
        state: "held" as const,
        created_at: 1,
        next_attempt_at: 1,
      });
      const before = await size();
      await store.db
        .insertInto("outbox")
        .values(Array.from({ length: 100 }, (_, n) => row(n)))
        .execute();
      expect(await size()).toBe(before);
      await vi.waitFor(async () => expect(await size()).toBeGreaterThan(before + 100 * 2_000), {
        timeout: 10_000,
        interval: 50,
      });
    } finally {
      await store.db.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  }, 15_000);

  it("checkpoints as SQLite does by default when its worker fails, and says so", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    // The worker loads the driver by the name sqlite-driver.ts gives it: here, one that does not exist.
    // A second instance of sqlite.ts only (the query makes it a module of its own): the
    // modules it shares with the rest of the file are not loaded again.
    vi.doMock("./sqlite-driver", async (importOriginal) => ({
      ...(await importOriginal<typeof SqliteDriverModule>()),
      sqliteDriver: "no-such-driver",
    }));
    const secondInstance = "./sqlite?no-driver";
    const { openSqlite: openWithout } = (await import(secondInstance)) as typeof SqliteModule;
    vi.doUnmock("./sqlite-driver");
    const store = openWithout(dir);
    try {
      await vi.waitFor(() =>
        expect(warn.mock.calls.map((call) => JSON.parse(String(call[0])))).toContainEqual(
          expect.objectContaining({
            level: "warn",
            event: "checkpointer_failed",
            message: expect.stringContaining("Cannot find module 'no-such-driver'"),
          }),
        ),
      );
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
      expect(rows).toStrictEqual([{ wal_autocheckpoint: 1000 }]);
    } finally {
      await store.db.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("waits, when asked and in destroy(), for the checkpointer of a closed database to end, and then for nothing", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    // Each checkpointer's stop held until released: the real message is then sent.
    const postMessage = Worker.prototype.postMessage;
    const held: Array<() => void> = [];
    const spy = vi.spyOn(Worker.prototype, "postMessage").mockImplementation(function (this: Worker, message) {
      held.push(() => postMessage.call(this, message));
    });
    try {
      const store = await connect({ DATA_DIR: dir, DATABASE_URL: undefined });
      let destroyed = false;
      const destroying = store.db.destroy().then(() => (destroyed = true));
      await vi.waitFor(() => expect(held).toHaveLength(1));
      let stopped = false;
      const waiting = checkpointersStopped().then(() => (stopped = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect([stopped, destroyed]).toStrictEqual([false, false]);
      held[0]!();
      await waiting;
      await destroying;
      expect([stopped, destroyed]).toStrictEqual([true, true]);
      // Nothing of this process holds the file any more: no descriptor open on it, its WAL or its index.
      expect(await descriptorsOn(path.join(dir, "sous.db"))).toStrictEqual([]);
    } finally {
      spy.mockRestore();
      await rm(dir, { recursive: true, force: true });
    }
    // Its twin: with none stopping, it resolves at once.
    let settled = false;
    void checkpointersStopped().then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(settled).toBe(true);
  });

  it("stops a checkpointer by asking it, never by ending its thread, even one closed while it still loads the driver", async () => {
    // Ending a thread while it loads better-sqlite3's native module aborted the whole process on Node 26 (FATAL ERROR
    // napi_get_last_error_info): one unit run in 25 of server/upgrade and server/db there.
    const terminate = vi.spyOn(Worker.prototype, "terminate");
    const asked = vi.spyOn(Worker.prototype, "postMessage");
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    try {
      // Opened and closed at once, ten times: each worker is still starting when its database closes.
      for (let round = 0; round < 10; round += 1) {
        const store = await connect({ DATA_DIR: dir, DATABASE_URL: undefined });
        await store.db.destroy();
      }
      await checkpointersStopped();
      expect(asked).toHaveBeenCalledTimes(10);
      expect(terminate).not.toHaveBeenCalled();
      expect(await descriptorsOn(path.join(dir, "sous.db"))).toStrictEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("after a commit made durable, closes with its WAL's sync handle: once closed, no descriptor of this process is on its files", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    const file = path.join(dir, "sous.db");
    try {
      const store = await connect({ DATA_DIR: dir, DATABASE_URL: undefined });
      await store.db.insertInto("outbox").values(heldLead).execute();
      await store.durable();
      // Its twin: while open, the sync handle is on the WAL, beside SQLite's own descriptors.
      expect((await descriptorsOn(file)).filter((target) => target === `${file}-wal`).length).toBeGreaterThanOrEqual(2);
      await store.db.destroy();
      await checkpointersStopped();
      expect(await descriptorsOn(file)).toStrictEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("creates a missing DATA_DIR for the server's user only", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    const store = await connect({ DATA_DIR: path.join(dir, "new", "data"), DATABASE_URL: undefined });
    try {
      // The folder whose parent was there (the usual DATA_DIR) and the one made for it, both.
      for (const made of [path.join(dir, "new"), path.join(dir, "new", "data")])
        expect((await stat(made)).mode & 0o777, made).toBe(0o700);
    } finally {
      await store.db.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("starts while another server holds the write lock past the busy timeout: it tries again once the lock is free", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    await (await connect({ DATA_DIR: dir, DATABASE_URL: undefined })).db.destroy();
    const other = new SQLite(path.join(dir, "sous.db"));
    other.exec("begin immediate");
    // Held past the first try's 5 s wait, which blocks this thread: the release runs in the pause before the next try.
    const release = setTimeout(() => other.exec("commit"), 1_000);
    try {
      const store = await connect({ DATA_DIR: dir, DATABASE_URL: undefined });
      expect(other.inTransaction).toBe(false);
      await store.db.destroy();
    } finally {
      clearTimeout(release);
      other.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 20_000);

  it("refuses to start on a file whose tables the migrations did not make, naming DATA_DIR", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    const foreign = new SQLite(path.join(dir, "sous.db"));
    foreign.exec("create table leads (something text)");
    foreign.close();
    try {
      await expect(connect({ DATA_DIR: dir, DATABASE_URL: undefined })).rejects.toThrow(
        /DATA_DIR: .* cannot hold the database: .*table "leads" already exists/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("is closed by closeDatabases, with every other database this process opened", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    const store = await database({ DATA_DIR: dir, DATABASE_URL: undefined });
    await sql`select 1`.execute(store.db);
    await closeDatabases();
    await expect(sql`select 1`.execute(store.db)).rejects.toThrow();
    // Asked again, it is opened anew.
    const reopened = await database({ DATA_DIR: dir, DATABASE_URL: undefined });
    expect(reopened).not.toBe(store);
    await closeDatabases();
    await rm(dir, { recursive: true, force: true });
  });

  it("holds its process until closed: a command that closes the database and then prints still prints", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-db-"));
    // The checkpointer's thread holds nothing open; its stop must, or the process ends mid-await, exit code 0.
    const script = path.join(dir, "command.ts");
    await writeFile(
      script,
      `import { closeDatabases, database } from ${JSON.stringify(path.resolve("server/db/connect.ts"))};
      (async () => {
        await database({ DATA_DIR: ${JSON.stringify(dir)}, DATABASE_URL: undefined });
        await closeDatabases();
        console.log("after the close");
      })();`,
    );
    const { stdout, status } = spawnSync(process.execPath, ["--conditions=react-server", "--import", "tsx", script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    await rm(dir, { recursive: true, force: true });
    expect({ stdout, status }).toStrictEqual({ stdout: "after the close\n", status: 0 });
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

describe("a Postgres reached through its Unix socket, in libpq's URL form", () => {
  it("opens, migrates and takes writes, as DATABASE_URL reads it", async () => {
    const postgres = await startPostgresServer();
    try {
      const url = withEnv({ DATABASE_URL: postgres.socketUrl }, () => readEnv()).DATABASE_URL!;
      const store = await connect({ DATA_DIR: "unused", DATABASE_URL: url });
      try {
        expect(store.engine).toBe("postgres");
        const { rows } = await sql<{ local: boolean }>`select inet_server_addr() is null as local`.execute(store.db);
        // No server address: the connection came through the socket, not TCP.
        expect(rows).toStrictEqual([{ local: true }]);
      } finally {
        await store.db.destroy();
      }
    } finally {
      await postgres.stop();
    }
  }, 60_000);
});

describe("a Postgres connection that breaks while idle", () => {
  const open = setupBothEngines();

  it("is logged for the operator, not thrown, and the next query connects again", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const store = await open("postgres");
    expect(store.engine).toBe("postgres");
    // One idle connection in the server's pool.
    await sql`select 1`.execute(store.db);
    const other = await open("postgres");
    const { rows } = await sql<{ ended: boolean }>`
      select pg_terminate_backend(pid) as ended from pg_stat_activity
      where pid <> pg_backend_pid() and datname = current_database() and backend_type = 'client backend'`.execute(
      other.db,
    );
    expect(rows.length).toBeGreaterThanOrEqual(1);

    await vi.waitFor(() =>
      expect(warn.mock.calls.map((call) => JSON.parse(String(call[0])))).toContainEqual(
        expect.objectContaining({
          level: "warn",
          event: "database_connection_lost",
          message: expect.stringContaining("terminating connection"),
        }),
      ),
    );
    await expect(sql<{ one: number }>`select 1 as one`.execute(store.db)).resolves.toMatchObject({
      rows: [{ one: 1 }],
    });
  });
});
