// V8's compile hint (`//# allFunctionsCalledOnLoad`) on the chunks every page runs as it starts, so Chrome compiles
// them while they download instead of on the main thread (decision 0006). Next has no option for it; chunks loaded
// later stay lazily compiled, and names keep their content hash (the same build writes the same bytes).
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
