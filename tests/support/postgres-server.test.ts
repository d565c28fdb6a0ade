import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { running } from "./processes";

/** A process that starts a cluster of its own, says where, and runs until it is killed. */
const runner = `
const loaded = await import(${JSON.stringify(path.join(import.meta.dirname, "postgres-server.ts"))});
const { startPostgresCluster } = loaded.startPostgresCluster ? loaded : loaded.default;
const cluster = await startPostgresCluster();
console.log("cluster " + JSON.stringify(cluster));
setInterval(() => {}, 1000);
`;

// What a failed test leaves is removed after it: the runners and their postmasters, then the folders.
const left = { pids: [] as number[], folders: [] as string[] };
afterEach(() => {
  for (const pid of left.pids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  for (const folder of left.folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The runner, its cluster's URL and folder, and the postmaster's pid (the first line of postmaster.pid). */
async function startRunner() {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", runner], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  left.pids.push(child.pid!);
  let output = "";
  for await (const chunk of child.stdout!) {
    output += String(chunk);
    const started = /cluster (\{.*\})/.exec(output)?.[1];
    if (!started) continue;
    const { url, socketUrl } = JSON.parse(started) as { url: string; socketUrl: string };
    const folder = /[?&]host=([^&]+)/.exec(socketUrl)![1]!;
    left.folders.push(folder);
    const postmaster = Number(readFileSync(path.join(folder, "data", "postmaster.pid"), "utf8").split("\n")[0]);
    left.pids.push(postmaster);
    return { child, url, folder, postmaster };
  }
  throw new Error(`the runner ended before its cluster started:\n${output}`);
}

async function answers(url: string) {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return (await client.query<{ one: number }>("select 1 as one")).rows[0]?.one === 1;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

describe("startPostgresCluster", () => {
  it("keeps its cluster while the process that started it runs", async () => {
    const { child, url, folder, postmaster } = await startRunner();
    expect(await answers(url)).toBe(true);
    // Past the watcher's first looks: nothing but the runner's end stops the cluster.
    await new Promise((done) => setTimeout(done, 2_500));
    expect(await answers(url)).toBe(true);
    expect([running(postmaster), existsSync(folder), running(child.pid!)]).toStrictEqual([true, true, true]);
  });

  it("stops the cluster and removes its folder once the process that started it is killed outright and runs no hook", async () => {
    const { child, url, folder, postmaster } = await startRunner();
    expect(await answers(url)).toBe(true);
    child.kill("SIGKILL");
    await once(child, "exit");
    await expect.poll(() => running(postmaster), { timeout: 15_000, interval: 250 }).toBe(false);
    await expect.poll(() => existsSync(folder), { timeout: 5_000, interval: 250 }).toBe(false);
    expect(await answers(url)).toBe(false);
  }, 30_000);
});
