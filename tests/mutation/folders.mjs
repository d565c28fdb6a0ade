// Prints the mutation score of each folder of the last run (reports/mutation/mutation.json)
// and fails when one is under FOLDER_BAR or the whole is under TOTAL_BAR (tests/MUTATION.md).
// Given reports instead (`node tests/mutation/folders.mjs a.json b.json`), the score of them
// together: the parts of a whole run made one folder at a time on one commit. A file in two
// of them is counted from the last.
import { readFileSync } from "node:fs";
import path from "node:path";

const FOLDER_BAR = 80;
const TOTAL_BAR = 85;
const given = process.argv.slice(2);
const reports = (given.length ? given : ["reports/mutation/mutation.json"]).map((file) =>
  JSON.parse(readFileSync(file, "utf8")),
);
const report = { files: Object.assign({}, ...reports.map(({ files }) => files)) };

// Stryker's own score: killed and timed-out mutants over every mutant that ran or had no test.
const counted = { Killed: "detected", Timeout: "detected", Survived: "missed", NoCoverage: "missed" };
const tally = () => ({ detected: 0, missed: 0 });
const folders = new Map();
const total = tally();
// server/'s own folders (server/leads, server/db with its migrations…), the files
// at server/'s top (env, startup, headers…) together, and lib/forms with its forms.
function folderOf(file) {
  const parts = file.split(path.sep);
  if (parts[0] === "server") return parts.length > 2 ? parts.slice(0, 2).join("/") : "server/*.ts";
  if (parts[0] === "lib" && parts[1] === "forms") return "lib/forms";
  return path.dirname(file);
}

for (const [file, { mutants }] of Object.entries(report.files)) {
  const folder = folderOf(file);
  if (!folders.has(folder)) folders.set(folder, tally());
  for (const { status } of mutants) {
    const kind = counted[status];
    if (!kind) continue;
    folders.get(folder)[kind] += 1;
    total[kind] += 1;
  }
}

const score = ({ detected, missed }) => (detected + missed ? (100 * detected) / (detected + missed) : 100);
const row = (name, counts, bar) => {
  const value = score(counts);
  const flag = value < bar ? `  < ${bar}%` : "";
  console.log(
    `${name.padEnd(28)} ${value.toFixed(2).padStart(6)}%  ${String(counts.detected).padStart(5)} detected  ${String(counts.missed).padStart(4)} missed${flag}`,
  );
  return value >= bar;
};

console.log(`\nMutation score by folder (bars: ${FOLDER_BAR}% each folder, ${TOTAL_BAR}% in all)`);
let ok = true;
for (const [folder, counts] of [...folders].sort(([a], [b]) => a.localeCompare(b)))
  ok = row(folder, counts, FOLDER_BAR) && ok;
ok = row("all", total, TOTAL_BAR) && ok;
process.exitCode = ok ? 0 : 1;
