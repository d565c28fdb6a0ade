import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
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

/**
 * A throwaway Postgres cluster in a temporary folder, on a free port of
 * 127.0.0.1, with no password (trust): initdb refuses root, so the cluster
 * belongs to the postgres user when the tests run as root.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
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
      run("pg_ctl", ["-D", data, "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, "-l", log, "-w", "start"]);
      break;
    } catch (error) {
      if (attempt >= 5 || !readFileSync(log, "utf8").includes("Address already in use")) throw error;
    }
  }
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    socketUrl: `postgresql://postgres@/postgres?host=${dir}&port=${port}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
