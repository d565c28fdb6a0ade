// The end of a CI run's log, from the report folder its steps wrote: specs that passed only on their retry, each
// stage's and step's time, and a failure's stage, command and first error lines. Plain Node: it runs when the install
// failed. Usage: node .ci/report.mjs DIR EXIT_CODE STAGE STAGE_COMMAND WHOLE_SECONDS
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const [dir, code, stage, stageCommand, whole] = process.argv.slice(2);
const failed = code !== "0";

const lines = (file) =>
  existsSync(path.join(dir, file))
    ? readFileSync(path.join(dir, file), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split("\t"))
    : [];
const reports = (prefix) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.startsWith(prefix) && name.endsWith(".json"))
        .flatMap((name) => {
          try {
            return [{ name, json: JSON.parse(readFileSync(path.join(dir, name), "utf8")) }];
          } catch {
            return [];
          }
        })
    : [];

// An error's first line that says something, with the terminal's colours taken out, cut to one screen line.
const firstLine = (text = "") =>
  (
    String(text)
      .replace(/\u001b\[[0-9;]*m/g, "")
      .split("\n")
      .map((line) => line.trim())
      .find(Boolean) ?? "(no message)"
  ).slice(0, 300);

/**
 * Every test of a Playwright JSON report, with where it is, the spec file that runs it (a test written in a helper that
 * several spec files call, as tests/e2e/sms-program.ts, is named where it is written) and how it went.
 */
function* browserTests(suite, root, specFile = suite.file) {
  for (const spec of suite.specs ?? [])
    for (const test of spec.tests ?? [])
      yield {
        where: `[${test.projectName}] ${path.join(root, spec.file)}:${spec.line} › ${spec.title}`,
        file: `[${test.projectName}] ${path.join(root, specFile ?? spec.file)}`,
        test,
      };
  for (const inner of suite.suites ?? []) yield* browserTests(inner, root, specFile);
}

const flaky = [];
const failures = [];
// Each spec file's time in each project (its tests' tries added up), for the slowest ten.
const fileSeconds = new Map();
for (const { json } of reports("e2e-")) {
  for (const error of json.errors ?? []) failures.push(`browser specs: ${firstLine(error.message)}`);
  // Spec files are named from the test folder; named here from the project's (the config file's folder, whichever clone
  // ran them), as the log names them.
  const { rootDir, configFile } = json.config ?? {};
  const root = rootDir ? path.relative(configFile ? path.dirname(configFile) : process.cwd(), rootDir) : "";
  for (const suite of json.suites ?? [])
    for (const { where, file, test } of browserTests(suite, root)) {
      const firstError = test.results?.find((result) => result.error)?.error?.message;
      const took = (test.results ?? []).reduce((sum, result) => sum + (result.duration ?? 0), 0);
      fileSeconds.set(file, (fileSeconds.get(file) ?? 0) + took / 1000);
      if (test.status === "flaky") flaky.push(`${where}\n      first try: ${firstLine(firstError)}`);
      if (test.status === "unexpected") failures.push(`${where}\n      ${firstLine(firstError)}`);
    }
}
for (const { json } of reports("unit-"))
  for (const file of json.testResults ?? []) {
    const where = path.relative(process.cwd(), file.name ?? "");
    const failing = (file.assertionResults ?? []).filter((result) => result.status === "failed");
    for (const result of failing)
      failures.push(`unit ${where} › ${result.fullName}\n      ${firstLine(result.failureMessages?.[0])}`);
    if (!failing.length && file.status === "failed") failures.push(`unit ${where}\n      ${firstLine(file.message)}`);
  }

const out = [];
out.push("", "== CI summary");
out.push("Times:");
for (const [name, seconds] of lines("steps.tsv")) out.push(`  step  ${name}: ${seconds} s`);
for (const [name, seconds] of lines("stages.tsv")) out.push(`  stage ${name}: ${seconds} s`);
const slowest = [...fileSeconds].sort((a, b) => b[1] - a[1]).slice(0, 10);
if (slowest.length) {
  out.push("Slowest spec files (their tests' time added up, whichever worker ran them):");
  for (const [file, seconds] of slowest) out.push(`  ${seconds.toFixed(0).padStart(5)} s  ${file}`);
}
out.push(
  flaky.length
    ? `Flaky: ${flaky.length} spec(s) passed only on their retry, each a defect to mend:\n  ${flaky.join("\n  ")}`
    : "Flaky: none (no spec needed its retry)",
);
if (failed) {
  // Each line of CI notes the step it is in (tests/run-all.sh): one it did not finish is where it stopped.
  const passedSteps = new Set(lines("steps.tsv").map(([name]) => name));
  const unfinished = existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.startsWith("current-step"))
        .flatMap((name) => lines(name))
        .filter(([step]) => step && !passedSteps.has(step))
    : [];
  out.push(`FAILED (exit ${code}) in the stage "${stage}": ${stageCommand}`);
  for (const [step, stepCommand] of unfinished) out.push(`  at the step "${step}": ${stepCommand}`);
  out.push(
    failures.length
      ? `  ${failures.length} failing test(s):\n  ${failures.join("\n  ")}`
      : "  No test report names a failing test: the step's own output above says why.",
  );
}
out.push(`${failed ? "CI failed" : "CI passed"} after ${whole} s in all`);
console.log(out.join("\n"));
