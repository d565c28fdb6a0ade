import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Vitest 5 targets Node 22+, and its reporter calls Map.groupBy (Node 21+) when
// it prints a failure. Node 20, this project's runtime, lacks it.
if (!("groupBy" in Map)) {
  Object.defineProperty(Map, "groupBy", {
    value<K, V>(items: Iterable<V>, keyOf: (item: V, index: number) => K) {
      const groups = new Map<K, V[]>();
      let index = 0;
      for (const item of items) {
        const key = keyOf(item, index++);
        groups.set(key, [...(groups.get(key) ?? []), item]);
      }
      return groups;
    },
  });
}

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL(".", import.meta.url)),
      // The stylesheet's text exists once `npm run build` has written it (scripts/site-css.ts);
      // components under test render without it, as they do in the browser (package.json "imports").
      "#site-css": fileURLToPath(new URL("./lib/style/no-css.js", import.meta.url)),
      "#console-css": fileURLToPath(new URL("./lib/style/no-css.js", import.meta.url)),
    },
  },
  test: {
    environment: "node",
    include: ["**/*.test.{ts,tsx}"],
    exclude: [
      "node_modules/**",
      ".next/**",
      ".stryker-tmp/**",
      "tests/e2e/**",
      // Stryker's vitest runner crashes on this file's module mock, and its sandbox rewrites the
      // sources the workflow file is built from, and the sources two tests read as text (which
      // file holds each table's SQL, the import graph): none of them tests what a mutant changes
      // in server/ or lib/forms/, all that is mutated (tests/mutation/run.sh sets MUTATION_RUN). The same for
      // the list of process-wide names, which reads every `processWide("name"` the sandbox rewrites, and the
      // documented log lines, which reads every `event:` the sandbox rewrites.
      ...(process.env.MUTATION_RUN
        ? [
            "tests/fixtures/**",
            "workflows/**",
            "server/db/table-owners.test.ts",
            "server/import-graph.test.ts",
            "server/process-wide-names.test.ts",
            "server/log-events.test.ts",
          ]
        : []),
    ],
    // One Postgres cluster for the run; each test file gets a database of its own on it.
    globalSetup: ["./tests/support/postgres-global.ts"],
    setupFiles: ["./tests/support/vitest-setup.ts"],
    // A focused test left in would turn the rest of the suite off, on any machine.
    allowOnly: false,
    restoreMocks: true,
    // A limit that stops a hung test, not a timing goal (those are bench/'s): Vitest's 5 s failed a correct test of
    // 120 random consent histories on Postgres (about 400 writes, one after the other) on CI's loaded second line, and
    // the test, still running past its limit, then wrote into the three after it.
    testTimeout: 60_000,
    unstubEnvs: true,
  },
});
