// The static mutants the whole-tree run leaves out (ignoreStatic): values
// computed once when a module loads, such as the env schema's defaults and
// bounds, the lead states, the honeypot's name, the revoke body's schema and
// the form definitions. Each such mutant needs every test that loads the
// module, so this run takes only the files that hold them and the tests that
// pin their values (static.vitest.mts), none of which starts Postgres. The
// lead states (server/db/schema.ts, lead-store.ts's open states) are pinned by
// lead-store.test.ts, which does. tests/MUTATION.md gives its score.
//   npx stryker run tests/mutation/static.stryker.mjs   (on Node 22+; see run.sh)
import base from "../../stryker.config.mjs";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  ...base,
  mutate: [
    "server/env.ts",
    "server/site-settings.ts",
    "server/consent/workflow-calls.ts",
    "lib/forms/honeypot.ts",
    "lib/forms/contact/index.ts",
    "lib/forms/waitlist/index.ts",
  ],
  vitest: { configFile: "tests/mutation/static.vitest.mts", related: false },
  ignoreStatic: false,
  thresholds: { high: 90, low: 85, break: null },
  htmlReporter: { fileName: "reports/mutation-static/index.html" },
  jsonReporter: { fileName: "reports/mutation-static/mutation.json" },
  incrementalFile: "reports/stryker-static-incremental.json",
};

export default config;
