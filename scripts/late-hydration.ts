// The last step of `npm run build`: every prerendered page starts its scripts after the first paint (decision 0010)
// and carries its script hashes in the routes manifest; the build fails if a page starts a script before the paint.
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { PHASE_PRODUCTION_BUILD } from "next/constants";
import nextConfig from "../next.config";
import { hydrateAfterPaint, loaderMark, startsScriptsEarly } from "@/server/web/late-hydration";
import { withPageHeaders } from "./page-headers";

async function files(dir: string, ending: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(ending))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * Rewrites the build's prerendered pages and gives each its script hashes in
 * the routes manifest (scripts/page-headers.ts); what is still wrong after it, one line each.
 */
export async function lateHydration(distDir: string) {
  const problems: string[] = [];
  const appDir = path.join(distDir, "server", "app");
  const pages = await files(appDir, ".html");
  const written: { name: string; html: string }[] = [];
  let rewritten = 0;
  for (const page of pages) {
    const html = await readFile(page, "utf8");
    const after = hydrateAfterPaint(html);
    if (after !== html) {
      await writeFile(page, after);
      rewritten += 1;
    }
    written.push({ name: path.relative(appDir, page).slice(0, -".html".length), html: after });
    const name = path.relative(distDir, page);
    if (startsScriptsEarly(after)) problems.push(`${name} still starts a script before the first paint`);
    if (!after.includes(`<script ${loaderMark}=""`)) problems.push(`${name} has no loader: it would never hydrate`);
  }
  if (pages.length === 0) problems.push(`no prerendered page in ${distDir}`);
  const manifestFile = path.join(distDir, "routes-manifest.json");
  const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as Parameters<typeof withPageHeaders>[0];
  await writeFile(manifestFile, JSON.stringify(withPageHeaders(manifest, written), null, 2));
  return { problems, pages: pages.length, rewritten, hashed: written.length };
}

async function main() {
  const distDir = nextConfig(PHASE_PRODUCTION_BUILD).distDir ?? ".next";
  const { problems, pages, rewritten, hashed } = await lateHydration(distDir);
  if (problems.length) {
    console.error(
      `late hydration (docs/decisions/0010-system-font-and-late-hydration.md):\n  ${problems.join("\n  ")}`,
    );
    process.exit(1);
  }
  console.log(
    `late hydration: ${pages} prerendered pages start their scripts after the first paint (${rewritten} rewritten now); ${hashed} pages' script hashes in the routes manifest`,
  );
}

if (import.meta.filename === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
