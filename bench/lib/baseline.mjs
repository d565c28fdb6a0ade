import { execFileSync } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { host, paths, ports, serverEnv } from "./config.mjs";
import { run, start, stop, waitForHttp } from "./processes.mjs";

/**
 * BENCH_BASELINE=<git ref>: the same bench also builds that commit and serves
 * it beside the working tree, so a change is measured before and after in one
 * run (a figure from another run drifts with the machine). The commit is
 * checked out in a temporary git worktree with a hard-linked copy of
 * node_modules (no download), built, and served on BENCH_PORT + 4.
 */
export const baselineRef = process.env.BENCH_BASELINE || undefined;
export const baselineURL = `http://${host}:${ports.baseline}`;

export async function startBaseline(log) {
  const ref = baselineRef;
  const commit = execFileSync("git", ["rev-parse", "--short", `${ref}^{commit}`], { cwd: paths.root, encoding: "utf8" }).trim();
  const dir = await mkdtemp(path.join(tmpdir(), "bench-baseline-"));
  execFileSync("git", ["worktree", "add", "--detach", dir, commit], { cwd: paths.root, stdio: "ignore" });
  // However the bench ends, the worktree goes (the server is stopped with the others).
  const remove = () => {
    execFileSync("git", ["worktree", "remove", "--force", dir], { cwd: paths.root, stdio: "ignore" });
    execFileSync("rm", ["-rf", dir]);
  };
  process.once("exit", remove);
  execFileSync("cp", ["-al", path.join(paths.root, "node_modules"), path.join(dir, "node_modules")]);
  log(`building the baseline ${ref} (${commit}) in ${dir}…`);
  await run("npm", ["run", "build"], { cwd: dir, env: serverEnv, log: `${paths.runs}baseline-build.log` });
  const server = start("npx", ["next", "start", "--hostname", host, "--port", String(ports.baseline)], {
    cwd: dir,
    env: serverEnv,
    log: `${paths.runs}baseline-next.log`,
  });
  await waitForHttp(`${baselineURL}/`, server);
  return {
    label: `${ref} (${commit})`,
    dir,
    url: baselineURL,
    pgid: server.child.pid,
    stop: () => stop(server),
  };
}
