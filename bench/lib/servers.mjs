import { execFileSync } from "node:child_process";
import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { baselineRef, host, paths, ports, serverEnv, urlOf } from "./config.mjs";
import { run, start, waitForHttp } from "./processes.mjs";

/** Serves the build in `dir` as `npm start` does, or with Next's own `next start`. */
async function serve(name, dir, port, { env = serverEnv, command = "npm start" } = {}) {
  const options = ["--hostname", host, "--port", String(port)];
  const server =
    command === "npm start"
      ? start("npm", ["start", "--", ...options], { cwd: dir, env, log: `${paths.runs}${name}-start.log` })
      : start("npx", ["next", "start", ...options], { cwd: dir, env, log: `${paths.runs}${name}-next.log` });
  await waitForHttp(urlOf(port), server);
  return { url: urlOf(port), pgid: server.child.pid };
}

/** Builds the app in `dir` (`npm run build`, or `next build` for the floor) and serves it. */
async function buildAndServe(
  name,
  dir,
  port,
  { env = serverEnv, build = ["npm", ["run", "build"]], command = "npm start" } = {},
) {
  await run(build[0], build[1], { cwd: dir, env, log: `${paths.runs}${name}-build.log` });
  return serve(name, dir, port, { env, command });
}

/** A temporary folder, removed when the bench exits. */
async function scratch(name) {
  const dir = await mkdtemp(path.join(tmpdir(), `bench-${name}-`));
  process.once("exit", () => execFileSync("rm", ["-rf", dir]));
  return dir;
}
// A hard-linked copy: no download, and Turbopack resolves nothing outside the folder it builds.
const linkModules = (dir) =>
  execFileSync("cp", ["-al", path.join(paths.root, "node_modules"), path.join(dir, "node_modules")]);

/** The working tree, built and served by `npm start`. */
export const serveApp = () => buildAndServe("app", paths.root, ports.next);

/** The same build served by `next start`, to weigh what `npm start` (scripts/start.mjs) adds. */
export const serveAppWithNextStart = () =>
  serve("app-next-start", paths.root, ports.nextStart, { command: "next start" });

/** The framework floor (bench/floor): an empty App Router page on the project's own next, react and react-dom. */
export async function serveFloor() {
  const dir = await scratch("floor");
  await cp(path.join(paths.root, "bench", "floor"), dir, { recursive: true });
  linkModules(dir);
  return buildAndServe("floor", dir, ports.floor, {
    env: { NEXT_TELEMETRY_DISABLED: "1" },
    build: ["npx", ["next", "build"]],
    command: "next start",
  });
}

/**
 * BENCH_BASELINE=<git ref>: that commit, checked out in a temporary worktree,
 * built and served beside the working tree, so a change is measured before
 * and after in one run (a figure from another run drifts with the machine).
 */
export async function serveBaseline() {
  if (!baselineRef) return undefined;
  const commit = execFileSync("git", ["rev-parse", "--short", `${baselineRef}^{commit}`], {
    cwd: paths.root,
    encoding: "utf8",
  }).trim();
  const dir = await scratch("baseline");
  execFileSync("git", ["worktree", "add", "--force", "--detach", dir, commit], { cwd: paths.root, stdio: "ignore" });
  process.once("exit", () => execFileSync("git", ["worktree", "prune"], { cwd: paths.root, stdio: "ignore" }));
  linkModules(dir);
  const label =
    commit.startsWith(baselineRef) || baselineRef.startsWith(commit) ? commit : `${baselineRef} (${commit})`;
  return { label, ...(await buildAndServe("baseline", dir, ports.baseline)) };
}
