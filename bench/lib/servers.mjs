import { execFileSync } from "node:child_process";
import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { baselineRef, host, paths, ports, serverEnv, urlOf } from "./config.mjs";
import { run, start, waitForHttp } from "./processes.mjs";

/** Builds the app in `dir` (`npm run build`, or `next build` for the floor) and serves it with `next start`. */
async function buildAndServe(name, dir, port, { env = serverEnv, build = ["npm", ["run", "build"]] } = {}) {
  await run(build[0], build[1], { cwd: dir, env, log: `${paths.runs}${name}-build.log` });
  const server = start("npx", ["next", "start", "--hostname", host, "--port", String(port)], { cwd: dir, env, log: `${paths.runs}${name}-next.log` });
  await waitForHttp(urlOf(port), server);
  return { url: urlOf(port), pgid: server.child.pid };
}

/** A temporary folder, removed when the bench exits. */
async function scratch(name) {
  const dir = await mkdtemp(path.join(tmpdir(), `bench-${name}-`));
  process.once("exit", () => execFileSync("rm", ["-rf", dir]));
  return dir;
}
// A hard-linked copy: no download, and Turbopack resolves nothing outside the folder it builds.
const linkModules = (dir) => execFileSync("cp", ["-al", path.join(paths.root, "node_modules"), path.join(dir, "node_modules")]);

/** The working tree, built and served. */
export const serveApp = () => buildAndServe("app", paths.root, ports.next);

/** The framework floor (bench/floor): an empty App Router page on the project's own next, react and react-dom. */
export async function serveFloor() {
  const dir = await scratch("floor");
  await cp(path.join(paths.root, "bench", "floor"), dir, { recursive: true });
  linkModules(dir);
  return buildAndServe("floor", dir, ports.floor, { env: { NEXT_TELEMETRY_DISABLED: "1" }, build: ["npx", ["next", "build"]] });
}

/**
 * BENCH_BASELINE=<git ref>: that commit, checked out in a temporary worktree,
 * built and served beside the working tree, so a change is measured before
 * and after in one run (a figure from another run drifts with the machine).
 */
export async function serveBaseline() {
  if (!baselineRef) return undefined;
  const commit = execFileSync("git", ["rev-parse", "--short", `${baselineRef}^{commit}`], { cwd: paths.root, encoding: "utf8" }).trim();
  const dir = await scratch("baseline");
  execFileSync("git", ["worktree", "add", "--force", "--detach", dir, commit], { cwd: paths.root, stdio: "ignore" });
  process.once("exit", () => execFileSync("git", ["worktree", "prune"], { cwd: paths.root, stdio: "ignore" }));
  linkModules(dir);
  const label = commit.startsWith(baselineRef) || baselineRef.startsWith(commit) ? commit : `${baselineRef} (${commit})`;
  return { label, ...(await buildAndServe("baseline", dir, ports.baseline)) };
}
