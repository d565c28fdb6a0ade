/**
 * The JavaScript every page runs as it starts, and V8's explicit compile hint
 * for it: `//# allFunctionsCalledOnLoad` on the file's first line.
 * `npm run build` ends by adding it (scripts/compile-hints.ts), and the
 * production-build check in `npm test` makes sure it is there.
 *
 * Without it, Chrome compiles a function only when it is first called, on the
 * main thread, so the framework's start-up (React and the Next router, the
 * same on an empty Next page) spends most of its one long task compiling.
 * With it, Chrome 136 and later compile those files while they download, on a
 * background thread (decision 0006).
 * Other browsers read a comment.
 *
 * Only the start-up chunks get it: the framework's (build-manifest.json's
 * rootMainFiles) and each route's entry chunks (the entryJSFiles of its client
 * reference manifest), the files the pages' HTML lists as scripts. Chunks
 * loaded later (zod on a field's first focus, sonner with the first toast) stay
 * lazily compiled, and the polyfills for old browsers are left alone.
 *
 * The file names keep their content hash: the same build always writes the
 * same bytes under the same name, and running the step twice changes nothing.
 * Next has no option for this (no banner for Turbopack's chunks). Turbopack
 * writes no browser source maps here; with `productionBrowserSourceMaps` on,
 * their lines would be one off.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import vm from "node:vm";

export const COMPILE_HINT = "//# allFunctionsCalledOnLoad\n";

const CLIENT_REFERENCE_MANIFEST = /_client-reference-manifest\.js$/;

type BuildManifest = { rootMainFiles?: string[]; polyfillFiles?: string[] };
type ClientReferenceManifest = { entryJSFiles?: Record<string, string[]> };

/** The entry chunks a client reference manifest names (it is a script that assigns them to a global). */
async function entryChunks(manifestFile: string): Promise<string[]> {
  const sandbox: { __RSC_MANIFEST?: Record<string, ClientReferenceManifest> } = {};
  vm.runInNewContext(await readFile(manifestFile, "utf8"), sandbox, { filename: manifestFile });
  return Object.values(sandbox.__RSC_MANIFEST ?? {}).flatMap((manifest) =>
    Object.values(manifest.entryJSFiles ?? {}).flat(),
  );
}

/** The JavaScript files, relative to distDir ("static/chunks/…"), that a page loads as it starts. */
export async function startupChunks(distDir: string): Promise<string[]> {
  const build = JSON.parse(await readFile(path.join(distDir, "build-manifest.json"), "utf8")) as BuildManifest;
  const chunks = new Set(build.rootMainFiles ?? []);
  const serverApp = path.join(distDir, "server", "app");
  const manifests = (await readdir(serverApp, { recursive: true })).filter((file) =>
    CLIENT_REFERENCE_MANIFEST.test(file),
  );
  for (const manifest of manifests) {
    for (const chunk of await entryChunks(path.join(serverApp, manifest))) chunks.add(chunk);
  }
  for (const polyfill of build.polyfillFiles ?? []) chunks.delete(polyfill);
  return [...chunks].filter((chunk) => chunk.endsWith(".js")).sort();
}

/** The start-up chunks, and those among them whose first line is not the hint yet. */
export async function startupChunksWithoutHint(distDir: string) {
  const chunks = await startupChunks(distDir);
  const withoutHint: string[] = [];
  for (const chunk of chunks) {
    if (!(await readFile(path.join(distDir, chunk), "utf8")).startsWith(COMPILE_HINT)) withoutHint.push(chunk);
  }
  return { chunks, withoutHint };
}

/** Puts the hint at the top of every start-up chunk that lacks it; returns the chunks, and those it marked. */
export async function addCompileHints(distDir: string) {
  const { chunks, withoutHint } = await startupChunksWithoutHint(distDir);
  for (const chunk of withoutHint) {
    const file = path.join(distDir, chunk);
    await writeFile(file, COMPILE_HINT + (await readFile(file, "utf8")));
  }
  return { chunks, added: withoutHint };
}
