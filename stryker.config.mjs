// Mutation testing: `npm run test:mutation` (tests/mutation/run.sh). It changes
// the server code and the shared form contract one small edit at a time and
// counts the edits that no unit test notices. Slow by nature, so not part of
// `npm test`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: "vitest",
  vitest: { configFile: "vitest.config.mts", related: true },
  mutate: [
    "server/**/*.ts",
    "server/escape-controls.mjs",
    "server/framework-log.mjs",
    "lib/forms/**/*.ts",
    "!**/*.test.ts",
  ],
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 10000,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
  // Under 85% in all the run fails; tests/mutation/folders.mjs holds each folder to 80%.
  thresholds: { high: 90, low: 85, break: 85 },
  // `npm run test:mutation -- --incremental` reuses this file's results for
  // what neither the code nor its tests changed since (tests/MUTATION.md).
  incrementalFile: "reports/stryker-incremental.json",
  ignoreStatic: true,
};

export default config;
