import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { once } from "node:events";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/** Running, as opposed to gone or a zombie nobody has reaped yet. */
function running(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

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
