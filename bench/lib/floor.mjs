import { execFileSync } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { host, paths, ports } from "./config.mjs";
import { run, start, stop, waitForHttp } from "./processes.mjs";

export const floorURL = `http://${host}:${ports.floor}`;

/**
 * The framework floor (bench/floor): an empty App Router page, built on the
 * project's own next, react and react-dom (a hard-linked copy of node_modules:
 * Turbopack resolves nothing outside the folder it builds) and served with
 * `next start`, so Lighthouse can measure it beside the site's pages.
 */
export async function startFloor(log) {
  const dir = await mkdtemp(path.join(tmpdir(), "bench-floor-"));
  process.once("exit", () => execFileSync("rm", ["-rf", dir]));
  await cp(path.join(paths.root, "bench", "floor"), dir, { recursive: true });
  execFileSync("cp", ["-al", path.join(paths.root, "node_modules"), path.join(dir, "node_modules")]);
  log(`building the framework floor (bench/floor) in ${dir}…`);
  const env = { NEXT_TELEMETRY_DISABLED: "1" };
  await run("npx", ["next", "build"], { cwd: dir, env, log: `${paths.runs}floor-build.log` });
  const server = start("npx", ["next", "start", "--hostname", host, "--port", String(ports.floor)], {
    cwd: dir,
    env,
    log: `${paths.runs}floor-next.log`,
  });
  await waitForHttp(`${floorURL}/`, server);
  return {
    url: `${floorURL}/`,
    stop: async () => {
      await stop(server);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
