import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { baselineRef, host, paths, ports, sameSizePath, serverEnv, urlOf } from "./config.mjs";
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

// What the floor's layout and an empty page weigh: the text a same-size page adds comes on top (bytes, about).
const FLOOR_EMPTY_BYTES = 5_400;

/** A floor page about as heavy as `bytes`: plain paragraphs of text on the floor's layout. */
function sameSizePage(bytes) {
  const words = "private chef quote menu client invoice grocery schedule prep waitlist ";
  // Each character comes twice, and each paragraph's tags and payload entry add about 5%.
  const length = Math.max(0, Math.round((bytes - FLOOR_EMPTY_BYTES) / 2.1));
  const text = words.repeat(Math.ceil(length / words.length) + 1).slice(0, length);
  const paragraphs = text.match(/[\s\S]{1,700}/g) ?? [];
  return `export default function Page() {
  return (
    <main>
${paragraphs.map((paragraph) => `      <p>{${JSON.stringify(paragraph)}}</p>`).join("\n")}
    </main>
  );
}
`;
}

/**
 * The framework floor (bench/floor): an empty App Router page on the
 * project's own next, react and react-dom, unpatched. `sizes` (the app's
 * pages and their bytes, uncompressed) adds a page of text as heavy as each
 * at sameSizePath: what the framework does with that many bytes, side by side.
 */
export async function serveFloor(sizes = {}) {
  const dir = await scratch("floor");
  await cp(path.join(paths.root, "bench", "floor"), dir, { recursive: true });
  for (const [pagePath, bytes] of Object.entries(sizes)) {
    const folder = path.join(dir, "app", ...sameSizePath(pagePath).split("/").filter(Boolean));
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, "page.jsx"), sameSizePage(bytes));
  }
  linkModules(dir);
  // Unpatched: the framework's own pace, not this tree's patches of it (patches/).
  patchModules(dir, []);
  return buildAndServe("floor", dir, ports.floor, {
    env: { NEXT_TELEMETRY_DISABLED: "1" },
    build: ["npx", ["next", "build"]],
    command: "next start",
  });
}

const patchesOf = (dir) =>
  existsSync(path.join(dir, "patches"))
    ? readdirSync(path.join(dir, "patches"))
        .filter((name) => name.endsWith(".patch"))
        .map((name) => readFileSync(path.join(dir, "patches", name), "utf8"))
    : [];

/**
 * The baseline's modules as its own `npm install` left them, in its copy:
 * a package this tree no longer installs (Inter's font before issue 48) is
 * fetched from the npm registry into it, and the files this tree's patches
 * change are un-patched there and patched by the baseline's own patches.
 */
function matchBaselineModules(dir) {
  const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
  for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
    if (existsSync(path.join(dir, "node_modules", name, "package.json"))) continue;
    const packed = execFileSync("npm", ["pack", `${name}@${range}`, "--silent", "--pack-destination", dir], {
      cwd: dir,
      encoding: "utf8",
    });
    const target = path.join(dir, "node_modules", name);
    mkdirSync(target, { recursive: true });
    execFileSync("tar", [
      "-xzf",
      path.join(dir, packed.trim().split("\n").at(-1)),
      "-C",
      target,
      "--strip-components=1",
    ]);
  }
  patchModules(dir, patchesOf(dir));
}

/** `dir`'s copy of the modules with these patches instead of this tree's (none: Next as it comes). */
function patchModules(dir, theirs) {
  const ours = patchesOf(paths.root);
  if (ours.join("\n") === theirs.join("\n")) return;
  for (const patch of ours) {
    // A copy of each patched file, so the hard link to this tree's stays as it is.
    for (const [, file] of patch.matchAll(/^\+\+\+ b\/(.+)$/gm))
      execFileSync("cp", ["--remove-destination", path.join(paths.root, file), path.join(dir, file)]);
    execFileSync("patch", ["-R", "-p1", "--silent"], { cwd: dir, input: patch });
  }
  for (const patch of theirs) execFileSync("patch", ["-p1", "--silent"], { cwd: dir, input: patch });
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
  matchBaselineModules(dir);
  const label =
    commit.startsWith(baselineRef) || baselineRef.startsWith(commit) ? commit : `${baselineRef} (${commit})`;
  return { label, ...(await buildAndServe("baseline", dir, ports.baseline)) };
}
