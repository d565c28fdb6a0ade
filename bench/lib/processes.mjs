import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** Every child still running, so that a failure or Ctrl-C can stop them all. */
const running = new Set();

/**
 * Starts a command in its own process group (`npx next start` and Lighthouse
 * start processes of their own; stopping the group reaches them), its output
 * in a log file so the bench's stdout stays the results.
 */
export function start(command, args, { cwd, env, log, stopSignal = "SIGTERM" }) {
  const out = createWriteStream(log);
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const exited = new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  const handle = { child, exited, stopSignal, command: [command, ...args].join(" ") };
  running.add(handle);
  exited.then(() => running.delete(handle));
  child.once("error", () => running.delete(handle));
  return handle;
}

/** Runs a command to its end; rejects on a non-zero exit. */
export async function run(command, args, options) {
  const handle = start(command, args, options);
  const spawnError = new Promise((_, reject) => handle.child.once("error", reject));
  const { code, signal } = await Promise.race([handle.exited, spawnError]);
  if (code !== 0) throw new Error(`${handle.command} failed (${signal ?? `exit ${code}`}); see ${options.log}`);
}

const signalGroup = (handle, signal) => {
  try {
    process.kill(-handle.child.pid, signal);
  } catch {
    // Already gone.
  }
};

/** Asks a child's process group to stop, then insists. */
export async function stop(handle, graceMs = 5_000) {
  if (!running.has(handle)) return;
  signalGroup(handle, handle.stopSignal);
  if (!(await Promise.race([handle.exited.then(() => true), sleep(graceMs).then(() => false)]))) {
    signalGroup(handle, "SIGKILL");
    await handle.exited;
  }
}

export const stopAll = () => Promise.all([...running].map((handle) => stop(handle)));

/** The last resort on process exit, where only synchronous work runs. */
export function killAllNow() {
  for (const handle of running) signalGroup(handle, "SIGKILL");
}

/** Waits until nothing listens on the port (a browser may still be shutting down), or says it is taken. */
export async function waitForPortFree(port, host, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const free = await new Promise((resolve) => {
      const probe = createServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, host, () => probe.close(() => resolve(true)));
    });
    if (free) return;
    if (Date.now() > deadline)
      throw new Error(`Port ${port} on ${host} is in use; set BENCH_PORT to move the bench's ports.`);
    await sleep(250);
  }
}

/** Polls a URL until it answers at all (any status); fails if the child dies or time runs out. */
export async function waitForHttp(url, handle, timeoutMs = 60_000) {
  let died = false;
  handle?.exited.then(() => (died = true));
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(250)) {
    if (died) throw new Error(`${handle.command} exited before answering on ${url}`);
    try {
      await (await fetch(url, { signal: AbortSignal.timeout(2_000) })).body?.cancel();
      return;
    } catch {
      // Not yet.
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}
