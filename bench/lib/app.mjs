import { host, nextURL, paths, ports, serverEnv } from "./config.mjs";
import { run, start, stop, waitForHttp } from "./processes.mjs";

/** Builds the app; resolves to what `next build` printed. */
export async function buildApp() {
  const log = `${paths.runs}build.log`;
  await run("npm", ["run", "build"], { cwd: paths.root, env: serverEnv, log });
  return log;
}

/**
 * `next start` on loopback, restartable. On a shared machine another process
 * may stop the server mid-run (e.g. someone ending "next start" processes by
 * name); the bench notes each such exit, starts the server again, and measures
 * again what the exit spoiled.
 */
export function appServer(log = () => {}) {
  /** @type {ReturnType<typeof start> | undefined} */
  let handle;
  let alive = false;
  /** @type {string[]} */
  const unexpectedExits = [];

  async function ensureRunning() {
    if (alive) return;
    const current = start("npx", ["next", "start", "--hostname", host, "--port", String(ports.next)], {
      cwd: paths.root,
      env: serverEnv,
      log: `${paths.runs}next${unexpectedExits.length ? `-restart${unexpectedExits.length}` : ""}.log`,
    });
    handle = current;
    alive = true;
    current.exited.then(({ code, signal }) => {
      alive = false;
      if (current.stopping) return;
      const exit = `next start exited unexpectedly at ${new Date().toISOString().slice(11, 19)} UTC (${signal ?? `exit code ${code}`})`;
      unexpectedExits.push(exit);
      log(`${exit}; it will be started again`);
    });
    await waitForHttp(`${nextURL}/`, current);
  }

  return {
    ensureRunning,
    unexpectedExits,
    /** The server's process group, while it runs. */
    pgid: () => (alive ? handle?.child.pid : undefined),
    stop: () => (handle ? stop(handle) : undefined),
  };
}
