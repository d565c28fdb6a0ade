/**
 * Makes the browser specs' test build (`.next-e2e`, with the `*.e2e.tsx`
 * fixtures and the webhook addresses set at build time) as Playwright's web
 * server would, without serving it: `.ci/run` builds it once, first, so both
 * Node lines serve it with `E2E_REUSE_BUILD=1` and start their specs side by
 * side (docs/testing.md, "CI's two Node lines").
 */
import { spawnSync } from "node:child_process";
import { e2e } from "../e2e/e2e-env";

const built = spawnSync("npm", ["run", "build"], { stdio: "inherit", env: { ...process.env, ...e2e.serverEnv } });
process.exit(built.status ?? 1);
