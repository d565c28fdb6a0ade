// Checks the production build in .next, after `npm run build`:
// - no route of the tests' own made it in (the error pages' fixture is built
//   into a copy of the site only: tests/support/copy-site.ts);
// - every start-up chunk carries V8's compile hint (scripts/startup-chunks.ts),
//   and every script the prerendered pages load is one of them, so that a Next
//   upgrade that moves its manifests cannot lose the hint unnoticed.
// Exits 1 naming what it found wrong.
import { readFile } from "node:fs/promises";
import { startupChunksWithoutHint } from "../../scripts/startup-chunks";
import { startScripts } from "@/server/web/late-hydration";

function fail(message: string): never {
  console.error(`production build: ${message}`);
  process.exit(1);
}

async function main() {
  const manifest = JSON.parse(await readFile(".next/server/app-paths-manifest.json", "utf8")) as Record<string, string>;
  const routes = Object.keys(manifest);
  const testRoutes = routes.filter((route) => /test/i.test(route));
  if (!routes.includes("/page") || !routes.includes("/signup/page")) {
    fail(`expected the site's pages, found ${routes.join(", ")}`);
  }
  if (testRoutes.length > 0) fail(`test routes found: ${testRoutes.join(", ")}`);

  const { chunks, withoutHint } = await startupChunksWithoutHint(".next");
  // The framework alone is four chunks and the runtime; the pages add their own.
  if (chunks.length < 5) fail(`expected the start-up chunks, found ${chunks.join(", ") || "none"}`);
  if (withoutHint.length > 0) fail(`start-up chunks without the compile hint: ${withoutHint.join(", ")}`);
  // The manifests' list against what the prerendered pages really load (the
  // scripts their loader starts after the paint; the nomodule polyfills are for
  // old browsers only).
  for (const page of ["index", "signup"]) {
    const html = await readFile(`.next/server/app/${page}.html`, "utf8");
    const scripts = startScripts(html).map((script) => script.replace(/^\/_next\//, ""));
    const missed = scripts.filter((script) => !chunks.includes(script ?? ""));
    if (scripts.length < 5 || missed.length > 0) {
      fail(
        `${page}.html loads ${scripts.length} scripts; not among the start-up chunks: ${missed.join(", ") || "none"}`,
      );
    }
  }

  console.log(
    `production build: ${routes.length} routes, none of them test-only; ${chunks.length} start-up chunks, all with the compile hint`,
  );
}

main().catch((error: unknown) => fail(String(error)));
