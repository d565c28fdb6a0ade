// Checks the production build in .next: no route of the browser tests' own
// build (the *.e2e.tsx pages, see next.config.ts) made it in. Run after
// `npm run build`; exits 1 naming any test route it finds.
import { readFile } from "node:fs/promises";

const manifest = JSON.parse(await readFile(".next/server/app-paths-manifest.json", "utf8"));
const routes = Object.keys(manifest);
const testRoutes = routes.filter((route) => /test/i.test(route));
if (!routes.includes("/page") || !routes.includes("/signup/page")) {
  console.error(`production build: expected the site's pages, found ${routes.join(", ")}`);
  process.exit(1);
}
if (testRoutes.length > 0) {
  console.error(`production build: test routes found: ${testRoutes.join(", ")}`);
  process.exit(1);
}
console.log(`production build: ${routes.length} routes, none of them test-only`);
