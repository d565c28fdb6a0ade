import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { once } from "node:events";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { freePort, onFreePort, portClaims, running, stablePort, stablePortRange, startProcess } from "./processes";
import { startRedisServer } from "./redis-server";

const processes = path.join(import.meta.dirname, "processes.ts");
// A test runner in miniature: it starts a server with startProcess and prints the server's pid.
const runner = `
const loaded = await import(${JSON.stringify(processes)});
const { startProcess } = loaded.startProcess ? loaded : loaded.default;
const server = await startProcess(process.execPath, ["-e", "console.log('ready'); setInterval(() => {}, 1000)"], {
  url: "", ready: (output) => output.includes("ready"),
});
console.log("server " + server.child.pid);
setInterval(() => {}, 1000);
`;

const cleanup: number[] = [];
afterEach(() => {
  for (const pid of cleanup.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
});

async function startRunner() {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", runner], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  cleanup.push(child.pid!);
  let output = "";
  for await (const chunk of child.stdout!) {
    output += String(chunk);
    const pid = /server (\d+)/.exec(output)?.[1];
    if (pid) {
      cleanup.push(Number(pid));
      return { runner: child, server: Number(pid) };
    }
  }
  throw new Error(`the runner ended before its server started:\n${output}`);
}

describe("startProcess", () => {
  it("leaves a server running while the process that started it runs", async () => {
    const { runner, server } = await startRunner();
    expect(running(server)).toBe(true);
    // Still there a moment later: nothing but the runner's end stops it.
    await new Promise((done) => setTimeout(done, 500));
    expect(running(server)).toBe(true);
    expect(running(runner.pid!)).toBe(true);
  });

  it("stops a server with the process that started it, even one killed outright and running no hook", async () => {
    const { runner, server } = await startRunner();
    expect(running(server)).toBe(true);
    runner.kill("SIGKILL");
    await once(runner, "exit");
    await expect.poll(() => running(server), { timeout: 10_000 }).toBe(false);
  }, 15_000);
});

describe("onFreePort", () => {
  it("starts the server on another port when the one it was given is taken by then, and gives up on other failures", async () => {
    const first = await startRedisServer();
    const taken = Number(new URL(first.url).port);
    const ports: number[] = [];
    const launch = (port: number) => {
      ports.push(port);
      const bound = ports.length === 1 ? taken : port;
      return startProcess("redis-server", ["--port", String(bound), "--bind", "127.0.0.1", "--save", ""], {
        url: `redis://127.0.0.1:${bound}`,
        ready: (output) => output.includes("Ready to accept connections"),
      });
    };
    const second = await onFreePort(launch);
    try {
      // The first try met the taken port; the second started.
      expect(ports).toHaveLength(2);
      expect(second.url).not.toBe(first.url);
      expect(second.url).toBe(`redis://127.0.0.1:${ports[1]}`);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
    // A server that fails for another reason is not started again.
    let tries = 0;
    const failing = onFreePort(() => {
      tries += 1;
      return startProcess("redis-server", ["--no-such-option"], { url: "", ready: () => false });
    });
    await expect(failing).rejects.toThrow(/exited with/);
    expect(tries).toBe(1);
  }, 30_000);
});

describe("stablePort", () => {
  const folders: string[] = [];
  afterEach(() => folders.splice(0).forEach((folder) => rmSync(folder, { recursive: true, force: true })));
  /** A claims folder of the test's own, as every test process of one run shares one. */
  function ownClaims() {
    const folder = mkdtempSync(path.join(tmpdir(), "sous-claims-"));
    folders.push(folder);
    vi.stubEnv("SOUS_PORT_CLAIMS", folder);
    return folder;
  }
  const sleeper = () => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    cleanup.push(child.pid!);
    return child;
  };

  it("gives a port below the kernel's ephemeral range, which a listen(0) is never given, claimed by this process", async () => {
    const folder = ownClaims();
    const { floor, ceiling } = stablePortRange();
    const first = await stablePort();
    const second = await stablePort();
    for (const port of [first, second]) {
      expect(port).toBeGreaterThanOrEqual(floor);
      expect(port).toBeLessThan(ceiling);
      expect(readFileSync(path.join(folder, String(port)), "utf8")).toBe(String(process.pid));
    }
    expect(second).not.toBe(first);
    // Its twin: freePort's ports come from the ephemeral range.
    for (let i = 0; i < 20; i += 1) expect(await freePort()).toBeGreaterThanOrEqual(ceiling);
  });

  it("never gives a port another live process holds a claim to, and takes one again once that process is gone", async () => {
    const folder = ownClaims();
    const { floor, ceiling } = stablePortRange();
    const other = sleeper();
    const left = floor + 7;
    for (let port = floor; port < ceiling; port += 1)
      if (port !== left) writeFileSync(path.join(folder, String(port)), String(other.pid));
    expect(await stablePort()).toBe(left);

    other.kill("SIGKILL");
    await once(other, "exit");
    const taken = new Set([await stablePort(), await stablePort()]);
    expect(taken.size).toBe(2);
    for (const port of taken) expect(readFileSync(path.join(folder, String(port)), "utf8")).toBe(String(process.pid));
  });

  it("lets its claims go when its process ends", async () => {
    const folder = ownClaims();
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `const m = await import(${JSON.stringify(processes)}); const { stablePort } = m.stablePort ? m : m.default; console.log(await stablePort());`,
      ],
      { env: { ...process.env, SOUS_PORT_CLAIMS: folder }, stdio: ["ignore", "pipe", "inherit"] },
    );
    let printed = "";
    child.stdout!.on("data", (chunk: Buffer) => (printed += chunk));
    await once(child, "exit");
    const port = Number(printed.trim());
    expect(port).toBeGreaterThan(0);
    expect(portClaims()).toBe(folder);
    expect(existsSync(path.join(folder, String(port)))).toBe(false);
  });
});
