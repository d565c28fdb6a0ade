import { execFileSync } from "node:child_process";
import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { host, paths, ports, serverEnv, urlOf } from "./config.mjs";
import { run, start, waitForHttp } from "./processes.mjs";

/** Serves the build in `dir` as `npm start` does, or with Next's own `next start`. */
async function serve(name, dir, port, { env = serverEnv, command = "npm start" } = {}) {
  const options = ["--hostname", host, "--port", String(port)];
  const server =
    command === "npm start"
      ? start("npm", ["start", "--", ...options], { cwd: dir, env, log: `${paths.runs}${name}-start.log` })
      : start("npx", ["next", "start", ...options], { cwd: dir, env, log: `${paths.runs}${name}-next.log` });
  await waitForHttp(urlOf(port), server);
  return { url: urlOf(port) };
}

/** The working tree, built (`npm run build`) and served by `npm start`. */
export async function serveApp() {
  await run("npm", ["run", "build"], { cwd: paths.root, env: serverEnv, log: `${paths.runs}app-build.log` });
  return serve("app", paths.root, ports.app);
}

/** The same build served by `next start`: what `npm start` (scripts/start.mjs) and the app's own code cost. */
export const serveAppWithNextStart = () =>
  serve("app-next-start", paths.root, ports.nextStart, { command: "next start" });

/**
 * The framework floor (bench/floor): an empty App Router page on the project's own next, react and react-dom, in a
 * temporary copy with hard-linked modules.
 */
export async function serveFloor() {
  const dir = await mkdtemp(path.join(tmpdir(), "bench-floor-"));
  process.once("exit", () => execFileSync("rm", ["-rf", dir]));
  await cp(path.join(paths.root, "bench", "floor"), dir, { recursive: true });
  execFileSync("cp", ["-al", path.join(paths.root, "node_modules"), path.join(dir, "node_modules")]);
  const env = { NEXT_TELEMETRY_DISABLED: "1" };
  await run("npx", ["next", "build"], { cwd: dir, env, log: `${paths.runs}floor-build.log` });
  return serve("floor", dir, ports.floor, { env, command: "next start" });
}
