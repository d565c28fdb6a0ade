import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";

/** A TCP port nothing listens on right now, on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * A free port held by a listener of ours until `release()`, for a server whose
 * address other servers must know before it starts: while held, no other
 * process's `listen(0)` is given it.
 */
export function reservePort(): Promise<{ port: number; release(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (typeof address !== "object" || !address) return reject(new Error("no port"));
      resolve({ port: address.port, release: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

/**
 * Starts a server on a free port, and on another one if the port was taken
 * between `freePort` closing it and the server binding it (a parallel worker's
 * server can take it: seen once in CI as EADDRINUSE). Node says EADDRINUSE,
 * redis-server "Address already in use".
 */
export async function onFreePort(launch: (port: number) => Promise<Started>, tries = 5): Promise<Started> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await launch(await freePort());
    } catch (error) {
      const output = (error as { output?: string }).output ?? "";
      if (attempt >= tries || !/EADDRINUSE|Address already in use/.test(output)) throw error;
    }
  }
}

export type Started = {
  url: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  stop(): Promise<void>;
};

/** Stops a child process: SIGTERM, then SIGKILL if it lingers. */
function stopper(child: ChildProcess) {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
      child.once("exit", () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill("SIGTERM");
    });
}

const setpriv = "/usr/bin/setpriv";

/**
 * A test's servers stop in its `afterAll`, but a runner killed outright (a
 * mutant that hangs past Stryker's timeout, a Ctrl-C'd worker) runs no hook.
 * On Linux, util-linux's setpriv execs the server with SIGKILL as its
 * parent-death signal, so the kernel stops it with the process that started it.
 * The server keeps setpriv's pid, so signals sent to the child reach it.
 */
function withParentDeathSignal(command: string, args: string[]): [string, string[]] {
  if (process.platform !== "linux" || !existsSync(setpriv)) return [command, args];
  return [setpriv, ["--pdeathsig", "KILL", "--", command, ...args]];
}

/**
 * Spawns a server and resolves once `ready(output)` says so; rejects if it
 * exits first or takes longer than the timeout.
 */
export function startProcess(
  command: string,
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    url: string;
    ready: (output: string) => boolean;
    timeoutMs?: number;
    cwd?: string;
  },
): Promise<Started> {
  const [file, argv] = withParentDeathSignal(command, args);
  const child = spawn(file, argv, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const stop = stopper(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${command} did not start in time:\n${output}`));
    }, options.timeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (options.ready(output)) {
        clearTimeout(timer);
        resolve({ url: options.url, child, output: () => output, stop });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`${command} exited with ${code}:\n${output}`), { code, output }));
    });
  });
}
