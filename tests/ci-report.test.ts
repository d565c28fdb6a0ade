import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

// .ci/run's last lines, from a report folder laid out as tests/run-all.sh and the runners leave it.
const folders: string[] = [];
afterEach(() => folders.splice(0).forEach((folder) => rmSync(folder, { recursive: true, force: true })));

function reportOf(files: Record<string, unknown>, code = "1") {
  const dir = mkdtempSync(path.join(tmpdir(), "ci-report-"));
  folders.push(dir);
  for (const [name, content] of Object.entries(files))
    writeFileSync(path.join(dir, name), typeof content === "string" ? content : JSON.stringify(content));
  return execFileSync("node", [".ci/report.mjs", dir, code, "npm test, pages", "npm test", "321"], {
    encoding: "utf8",
  });
}

const result = (duration: number, error?: string) => ({ duration, ...(error ? { error: { message: error } } : {}) });
const spec = (file: string, title: string, projectName: string, status: string, results: unknown[]) => ({
  file,
  line: 3,
  title,
  tests: [{ projectName, status, results }],
});
const browserReport = {
  config: { rootDir: path.resolve("tests/e2e") },
  suites: [
    {
      specs: [
        spec("slow.server.spec.ts", "waits", "server", "expected", [result(90_000)]),
        spec("slow.server.spec.ts", "waits again", "server", "expected", [result(30_000)]),
        spec("menu.spec.ts", "opens", "js-on", "flaky", [
          result(4_000, "\u001b[31mTimeout 5000ms\u001b[0m\nstack"),
          result(2_000),
        ]),
        spec("menu.spec.ts", "opens", "js-off", "unexpected", [result(7_000, "expected 2 links")]),
      ],
    },
  ],
};

describe(".ci/report.mjs", () => {
  it("lists the slowest spec files per project, a spec that passed on its retry, and each failing test", () => {
    const out = reportOf({ "e2e-pages.json": browserReport });
    const slowest = out.split("\n").filter((line) => / s {2}\[/.test(line));
    expect(slowest).toStrictEqual([
      "    120 s  [server] tests/e2e/slow.server.spec.ts",
      "      7 s  [js-off] tests/e2e/menu.spec.ts",
      "      6 s  [js-on] tests/e2e/menu.spec.ts",
    ]);
    expect(out).toContain("[js-on] tests/e2e/menu.spec.ts:3 › opens\n      first try: Timeout 5000ms\n");
    expect(out).toContain("[js-off] tests/e2e/menu.spec.ts:3 › opens\n      expected 2 links\n");
    expect(out.trimEnd().split("\n").at(-1)).toBe("CI failed after 321 s in all");
  });

  it("names a spec file from its project, whichever clone ran it", () => {
    const elsewhere = {
      ...browserReport,
      config: { rootDir: "/tmp/line-2/project/tests/e2e", configFile: "/tmp/line-2/project/playwright.config.ts" },
    };
    const out = reportOf({ "e2e-server.json": elsewhere });
    expect(out).toContain("    120 s  [server] tests/e2e/slow.server.spec.ts\n");
    expect(out).not.toContain("line-2");
  });

  it("counts a test written in a helper under the spec file that ran it, and names it where it is written", () => {
    const helperSuite = (file: string, seconds: number, status = "expected") => ({
      file,
      suites: [{ file, specs: [spec("program.ts", `in ${file}`, "n8n", status, [result(seconds * 1000)])] }],
    });
    const out = reportOf({
      "e2e-pages.json": {
        config: browserReport.config,
        suites: [
          helperSuite("program-texts.server.spec.ts", 200, "unexpected"),
          helperSuite("program-launch.server.spec.ts", 150),
        ],
      },
    });
    const slowest = out.split("\n").filter((line) => / s {2}\[/.test(line));
    expect(slowest).toStrictEqual([
      "    200 s  [n8n] tests/e2e/program-texts.server.spec.ts",
      "    150 s  [n8n] tests/e2e/program-launch.server.spec.ts",
    ]);
    expect(out).toContain("[n8n] tests/e2e/program.ts:3 › in program-texts.server.spec.ts\n");
  });

  it("names the step each line stopped in, and not a step a line finished", () => {
    const out = reportOf({
      "steps.tsv": "server: unit tests\t150\tnpm run test:unit\n",
      "current-step-pages-browser-specs": "pages: browser specs\tnpm run test:e2e -- --project js-on\n",
      "current-step-server-unit-tests": "server: unit tests\tnpm run test:unit\n",
    });
    expect(out).toContain('FAILED (exit 1) in the stage "npm test, pages": npm test\n');
    expect(out).toContain('  at the step "pages: browser specs": npm run test:e2e -- --project js-on\n');
    expect(out).not.toContain('at the step "server: unit tests"');
    expect(out).toContain("  step  server: unit tests: 150 s\n");
  });

  it("says a run passed, with no failure named", () => {
    const out = reportOf({ "current-step-pages": "pages: lint\tnpm run lint\n" }, "0");
    expect(out).not.toContain("FAILED");
    expect(out).toContain("Flaky: none");
    expect(out.trimEnd().split("\n").at(-1)).toBe("CI passed after 321 s in all");
  });
});
