import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

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

/** Where the test processes of this machine note the stable ports they hold (one file a port, holding its pid). */
export const portClaims = () => process.env.SOUS_PORT_CLAIMS ?? path.join(tmpdir(), "sous-port-claims");

/** The first port the kernel may give a `listen(0)` or an outgoing connection (Linux's ip_local_port_range). */
function ephemeralFloor() {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

/** The ports `stablePort()` gives: the 12,000 below the kernel's ephemeral range (20768-32767 by Linux's default). */
export function stablePortRange() {
  const ceiling = ephemeralFloor();
  return { floor: Math.max(1024, ceiling - 12_000), ceiling };
}

/** Running, as opposed to gone or a zombie nobody has reaped yet. */
export function running(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Whether a process of that pid is alive (a claim of a process gone is free to take). */
function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether the port can be bound now (nothing outside the claims holds it). */
function bindable(port: number) {
  return new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** Claims a port's file for this process: false when a live process holds it (one gone lets it go). */
function claim(file: string) {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      return true;
    } catch {
      let owner = Number.NaN;
      try {
        owner = Number(readFileSync(file, "utf8"));
      } catch {}
      if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) return false;
      try {
        unlinkSync(file);
      } catch {}
    }
  }
  return false;
}

const claimed = new Set<string>();
process.once("exit", () => {
  for (const file of claimed) {
    try {
      unlinkSync(file);
    } catch {}
  }
});

/**
 * A port for a server that must come back on the same address: one restarted
 * (n8n, the site, whose addresses the other knows) or one whose address is
 * handed out before it starts. `freePort()`'s port sits free between a stop and
 * the start again, and a parallel worker's `listen(0)` may be given it then.
 * This one is taken below the kernel's ephemeral range, where no `listen(0)` or
 * outgoing connection is ever given a port, and claimed for this process by a
 * file in a folder every test process shares (`portClaims()`), so no other test
 * process takes it while its server is down. The claim lasts as long as the
 * process: a claim whose process is gone is taken again.
 */
export async function stablePort(): Promise<number> {
  const { floor, ceiling } = stablePortRange();
  const folder = portClaims();
  mkdirSync(folder, { recursive: true });
  const span = ceiling - floor;
  const start = Math.floor(Math.random() * span);
  for (let step = 0; step < span; step += 1) {
    const port = floor + ((start + step) % span);
    const file = path.join(folder, String(port));
    if (!claim(file)) continue;
    if (await bindable(port)) {
      claimed.add(file);
      return port;
    }
    unlinkSync(file);
  }
  throw new Error(`no stable port left between ${floor} and ${ceiling}`);
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
      if (attempt >= tries || !/EADDRINUSE|Address already in use/i.test(output)) throw error;
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
