import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { onFreePort, startProcess } from "./processes";

const thirdForm = path.join("tests", "fixtures", "third-form");
const errorPages = path.join("tests", "fixtures", "error-pages");

/** The edits docs/adding-a-form.md asks of a third form, each a line of the doc applied to a file of the site. */
export const thirdFormEdits = [
  {
    file: "lib/forms/index.ts",
    find: 'import { waitlist } from "./waitlist";',
    add: 'import { tasting } from "./tasting";',
  },
  {
    file: "lib/forms/index.ts",
    find: "registryOf({ contact, waitlist })",
    replace: "registryOf({ contact, waitlist, tasting })",
  },
  { file: "middleware.ts", find: "signup/?$|", add: "tasting/?$|sent/tasting/?$|" },
] as const;

/**
 * The site as a newcomer who follows docs/adding-a-form.md makes it: a copy of
 * this checkout (its files as git knows them, node_modules linked), the third
 * form's files where the doc puts them, and the doc's edits, built with
 * `npm run build`. The error pages' fixture (tests/fixtures/error-pages) goes
 * in beside them, so that this one build also serves the specs of the error
 * boundaries, and the site's own build, which every other browser spec serves,
 * holds nothing of the tests'. `start` serves it as `npm start` does.
 */
export function buildCopySite() {
  const root = mkdtempSync(path.join(tmpdir(), "sous-copy-site-"));
  // A copy that fails before it is handed back has no one to remove it (the spec's afterAll gets no site).
  try {
    return copyAndBuild(root);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

function copyAndBuild(root: string) {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    encoding: "utf8",
  })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
    cpSync(file, path.join(root, file));
  }
  // Hard links: Turbopack compiles nothing outside the project's folder, so a symlink to ours would not do.
  if (spawnSync("cp", ["-al", "node_modules", path.join(root, "node_modules")]).status !== 0)
    cpSync("node_modules", path.join(root, "node_modules"), { recursive: true, verbatimSymlinks: true });

  // The doc's new files: the fixture holds them where the site would; the error pages, where a page would be.
  for (const entry of ["app", "components", "lib"])
    cpSync(path.join(thirdForm, entry), path.join(root, entry), { recursive: true });
  cpSync(path.join(errorPages, "app"), path.join(root, "app"), { recursive: true });
  for (const edit of thirdFormEdits) {
    const file = path.join(root, edit.file);
    const text = readFileSync(file, "utf8");
    if (!text.includes(edit.find))
      throw new Error(`${edit.file} no longer holds ${edit.find}: update docs/adding-a-form.md`);
    const replaced =
      "replace" in edit
        ? edit.replace
        : edit.find.endsWith(";")
          ? `${edit.find}\n${edit.add}`
          : `${edit.find}${edit.add}`;
    writeFileSync(file, text.replace(edit.find, replaced));
  }
  // A build takes about 2 minutes here; one that hangs is stopped at 10, rather than holding its worker (which a
  // synchronous spawn blocks, test time-outs included) until CI's own limit.
  const build = spawnSync("npm", ["run", "build"], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    timeout: 10 * 60_000,
    killSignal: "SIGKILL",
  });
  if (build.status !== 0)
    throw new Error(
      `npm run build ${build.signal ? `was stopped (${build.signal}) after 10 minutes` : "failed"} in the copy of the site:\n${build.stdout}\n${build.stderr}`,
    );

  return {
    root,
    build: build.stdout,
    /** Serves the build as npm start does, with its own database and these settings. */
    start(env: Record<string, string>) {
      return onFreePort((port) =>
        startProcess(
          process.execPath,
          [path.join(root, "scripts", "start.mjs"), "--hostname", "127.0.0.1", "--port", String(port)],
          {
            env: {
              ...process.env,
              NODE_ENV: "production",
              NEXT_TELEMETRY_DISABLED: "1",
              DATA_DIR: path.join(root, "data"),
              ...env,
            },
            url: `http://127.0.0.1:${port}`,
            ready: (output) => output.includes("Ready in"),
            cwd: root,
          },
        ),
      );
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
