import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./processes";

/** Debian's Postgres binaries: the newest major installed. */
function binDir() {
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const found = majors
    .map((major) => path.join(root, major, "bin"))
    .find((dir) => existsSync(path.join(dir, "initdb")));
  if (!found)
    throw new Error(
      "Postgres is not installed: npm test installs Debian's postgresql package (tests/support/ensure-system-deps.sh)",
    );
  return found;
}

export type PostgresServer = {
  url: string;
  /** The same database through its Unix socket, in libpq's form: postgresql://user@/db?host=FOLDER&port=N. */
  socketUrl: string;
  stop(): Promise<void>;
};

/** Where the unit run's one cluster is (tests/support/postgres-global.ts), for the test files it runs. */
export const SHARED_POSTGRES = "SOUS_TEST_POSTGRES";

/**
 * A Postgres database of its own for a test file: a new database on the unit
 * run's one cluster when it has one (tests/support/postgres-global.ts: a
 * cluster's start costs about 2 s, a database about 0.1 s, and a mutation run
 * pays it for every mutant a file's tests cover), else a cluster of its own.
 * Either way nothing else writes in it, and stop() removes it. A test that
 * changes what a cluster holds for all (roles, settings) starts its own with
 * startPostgresCluster().
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const shared = process.env[SHARED_POSTGRES];
  return shared ? databaseOn(JSON.parse(shared) as Pick<PostgresServer, "url" | "socketUrl">) : startPostgresCluster();
}

let made = 0;

async function databaseOn(cluster: Pick<PostgresServer, "url" | "socketUrl">): Promise<PostgresServer> {
  made += 1;
  const name = `t_${process.pid}_${made}_${randomBytes(3).toString("hex")}`;
  const asSuperuser = async (statement: string) => {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await asSuperuser(`create database ${name}`);
  const named = (url: string) => url.replace(/\/postgres(\?|$)/, `/${name}$1`);
  let stopped = false;
  return {
    url: named(cluster.url),
    socketUrl: named(cluster.socketUrl),
    async stop() {
      if (stopped) return;
      stopped = true;
      // Its connections still open end with it, as a cluster's immediate stop ended them.
      await asSuperuser(`drop database ${name} with (force)`);
    },
  };
}

/** Whether this machine has Postgres's binaries (npm test installs them). */
export function postgresInstalled() {
  try {
    binDir();
    return true;
  } catch {
    return false;
  }
}

/**
 * A throwaway Postgres cluster in a temporary folder, on a free port of
 * 127.0.0.1, with no password (trust): initdb refuses root, so the cluster
 * belongs to the postgres user when the tests run as root. Its `postgres`
 * database is the one its URLs name.
 */
export async function startPostgresCluster({ maxConnections = 100 } = {}): Promise<PostgresServer> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(tmpdir(), "sous-pg-"));
  const root = process.getuid?.() === 0;
  const run = (command: string, args: string[]) =>
    execFileSync(
      root ? "runuser" : path.join(bin, command),
      root ? ["-u", "postgres", "--", path.join(bin, command), ...args] : args,
      { stdio: "pipe" },
    );
  if (root) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString().trim()), -1);
  const data = path.join(dir, "data");
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const log = path.join(dir, "log");
  let port = 0;
  // A port taken by a parallel worker's server between freePort and the bind: another one.
  for (let attempt = 1; ; attempt += 1) {
    port = await freePort();
    try {
      // fsync stays on: the tests prove durability on the settings a server would have.
      run("pg_ctl", [
        "-D",
        data,
        "-o",
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=${maxConnections}`,
        "-l",
        log,
        "-w",
        "start",
      ]);
      break;
    } catch (error) {
      if (attempt >= 5 || !readFileSync(log, "utf8").includes("Address already in use")) throw error;
    }
  }
  // pg_ctl's server is no child of this process: a runner killed outright (a mutant hanging past
  // Stryker's timeout, a Ctrl-C'd worker) runs no afterAll, and its cluster would outlive it. A
  // watcher of its own session stops the cluster and removes its folder once this process is gone.
  const pgCtl = [...(root ? ["runuser", "-u", "postgres", "--"] : []), path.join(bin, "pg_ctl")].join(" ");
  const watcher = spawn(
    "sh",
    [
      "-c",
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ` +
        `${pgCtl} -D '${data}' -m immediate -w stop >/dev/null 2>&1; rm -rf '${dir}'`,
    ],
    { detached: true, stdio: "ignore" },
  );
  watcher.unref();
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    socketUrl: `postgresql://postgres@/postgres?host=${dir}&port=${port}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      watcher.kill();
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
