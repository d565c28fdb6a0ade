/**
 * Makes the production build (`.next`, `npm run build`) with the browser
 * specs' webhook addresses set at build time, as Playwright's web server
 * would, without serving it: `npm test` builds once, so that its production
 * build's checks and every browser spec share it (E2E_REUSE_BUILD=1), and
 * `.ci/run` builds it first, so both Node lines serve it and start their specs
 * side by side (docs/testing.md, "CI's two Node lines"). Nothing of the tests
 * is in it: the error pages' fixture is built into a copy of the site
 * (tests/support/copy-site.ts).
 */
import { spawnSync } from "node:child_process";
import { e2e } from "../e2e/e2e-env";

const built = spawnSync("npm", ["run", "build"], { stdio: "inherit", env: { ...process.env, ...e2e.serverEnv } });
process.exit(built.status ?? 1);
