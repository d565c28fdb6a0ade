import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";
import { browserLaunch, e2e } from "./tests/e2e/e2e-env";

/**
 * Browser tests run against the production build (`npm run build` + `npm start`),
 * made with the webhook addresses set and the webhooks pointed at a receiver on
 * 127.0.0.1. A spec runs with JavaScript on and with it off, unless it only
 * reads what the server sent (tests/e2e/fixtures.ts).
 */
// Debian's Chromium (its headless shell): Playwright's own browser download is not reachable here.
const chromium = { ...devices["Desktop Chrome"], launchOptions: browserLaunch };

const serverSpecs = /\.server\.spec\.ts$/;
// The SMS program on n8n 2.x, in its two parts (texts, launch), each file with an n8n of its own so the two run side
// by side: n8n runs on its own Node 24 whatever Node runs the tests, so the site's runtime changes nothing they check,
// and CI's first line runs them beside the page specs, which leaves its second line (the runtime's specs) less to do
// (docs/testing.md, "CI's two Node lines").
const currentN8nSpecs = /[/\\]sms-workflow-n8n2-(texts|launch)\.server\.spec\.ts$/;
// The SMS program on n8n 1.x (which runs on the tests' own Node up to 24), in the same two parts, and the other server
// specs that wait longest on real time: the launch at scale, the command-line upgrade on 1.x, and the editor's upgrade
// on 2.x, which runs on either line and balances them (docs/testing.md). Each long group is a project of its own, listed first, the longest
// first, so they are handed out first (Playwright hands out projects in the order listed here, a project's files in
// name order) instead of forming a tail after every short spec.
const olderN8nSpecs = /[/\\]sms-workflow-n8n1-(texts|launch)\.server\.spec\.ts$/;
const longServerSpecs = /[/\\](invitations|n8n-editor-upgrade|n8n1-cli-upgrade)\.server\.spec\.ts$/;

/** Whether the run serves a test build made before it, which must then be there. */
function reusedBuild() {
  if (process.env.E2E_REUSE_BUILD !== "1") return false;
  if (!existsSync(".next/BUILD_ID")) throw new Error("E2E_REUSE_BUILD=1, but .next holds no build");
  return true;
}

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  // A focused test left in would turn the rest of the suite off, on any machine.
  forbidOnly: true,
  // In CI a failed spec runs once more: a pass on its retry is reported as flaky, and .ci/run ends by naming it
  // (a flaky spec is a defect to mend, not a pass). Locally a failure is a failure the first time.
  retries: process.env.CI ? 1 : 0,
  workers: process.env.CI ? 2 : undefined,
  reporter: [
    ["list"],
    ...(process.env.CI ? [] : [["html", { open: "never" }] as const]),
    // tests/run-all.sh asks for it when .ci/run reports (SOUS_REPORT_DIR): .ci/report.mjs reads it.
    ...(process.env.E2E_JSON_REPORT ? [["json", { outputFile: process.env.E2E_JSON_REPORT }] as const] : []),
  ],
  globalSetup: "./tests/e2e/global-setup.ts",
  use: {
    baseURL: e2e.baseURL,
    trace: "retain-on-failure",
  },
  projects: [
    // No browser (or one of their own): specs that start their own server instances on the same build.
    { name: "n8n-current", testMatch: currentN8nSpecs },
    { name: "n8n-older", testMatch: olderN8nSpecs },
    { name: "server-long", testMatch: longServerSpecs },
    { name: "js-on", testIgnore: serverSpecs, use: { ...chromium, javaScriptEnabled: true } },
    // A test tagged as reading only what the server sent runs with JavaScript on alone (tests/e2e/fixtures.ts).
    {
      name: "js-off",
      testIgnore: serverSpecs,
      grepInvert: /@same-without-js/,
      use: { ...chromium, javaScriptEnabled: false },
    },
    { name: "server", testMatch: serverSpecs, testIgnore: [currentN8nSpecs, olderN8nSpecs, longServerSpecs] },
  ],
  webServer: {
    // Built with the webhook addresses set (e2e.serverEnv), to prove they still stay out of the bundles. E2E_REUSE_BUILD=1:
    // the build in .next is already this tree's, made so (`npm test`'s build step, and CI's, for both Node lines:
    // docs/testing.md). The run's database starts empty.
    command: `${reusedBuild() ? "" : "npm run build && "}rm -rf ${e2e.serverEnv.DATA_DIR} && npm run start -- --hostname 127.0.0.1 --port ${e2e.port}`,
    url: e2e.baseURL,
    reuseExistingServer: false,
    timeout: 300_000,
    env: e2e.serverEnv,
    stdout: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
  },
});
