import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** Every child still running, so that a failure or Ctrl-C can stop them all. */
const running = new Set();

/**
 * Starts a command in its own process group: `npx next start` and the
 * Lighthouse CLI start processes of their own, and stopping the group reaches them.
 * Output goes to a log file, so the bench's stdout stays the results.
 *
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: Record<string, string>, log: string, stopSignal?: NodeJS.Signals }} options
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
  const handle = { child, exited, stopSignal, command: [command, ...args].join(" "), stopping: false };
  running.add(handle);
  exited.then(() => running.delete(handle));
  child.once("error", () => running.delete(handle));
  return handle;
}

/**
 * Runs a command to its end and rejects on a non-zero exit.
 * @returns {Promise<void>}
 */
export async function run(command, args, options) {
  const handle = start(command, args, options);
  const spawnError = new Promise((_, reject) => handle.child.once("error", reject));
  const { code, signal } = await Promise.race([handle.exited, spawnError]);
  if (code !== 0) throw new Error(`${handle.command} failed (${signal ?? `exit ${code}`}); see ${options.log}`);
}

/** Asks a child's process group to stop, then insists. */
export async function stop(handle, graceMs = 5_000) {
  if (!running.has(handle)) return;
  handle.stopping = true;
  signalGroup(handle, handle.stopSignal);
  const stopped = await Promise.race([handle.exited.then(() => true), sleep(graceMs).then(() => false)]);
  if (!stopped) {
    signalGroup(handle, "SIGKILL");
    await handle.exited;
  }
}

export async function stopAll() {
  await Promise.all([...running].map((handle) => stop(handle)));
}

/** The last resort on process exit, where only synchronous work runs. */
export function killAllNow() {
  for (const handle of running) signalGroup(handle, "SIGKILL");
}

function signalGroup(handle, signal) {
  try {
    process.kill(-handle.child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Fails early and clearly when a port the bench needs is taken. */
export async function assertPortFree(port, host) {
  await new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", () => reject(new Error(`Port ${port} on ${host} is in use; set BENCH_PORT to move the bench's ports.`)));
    probe.listen(port, host, () => probe.close(resolve));
  });
}

/** Waits for a port to be released, e.g. by a browser that is still shutting down. */
export async function waitForPortFree(port, host, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertPortFree(port, host);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(250);
    }
  }
}

/**
 * Polls a URL until it answers at all (any status), or the child dies, or time runs out.
 * @param {string} url
 * @param {{ exited: Promise<unknown>, command: string } | undefined} handle
 */
export async function waitForHttp(url, handle, timeoutMs = 60_000) {
  let died = false;
  handle?.exited.then(() => (died = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (died) throw new Error(`${handle.command} exited before answering on ${url}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      return;
    } catch {
      await sleep(250);
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}
