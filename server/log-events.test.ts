import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Where the server's code lives: every file that may write a log line.
const roots = ["server", "app", "scripts", "lib", "middleware.ts", "instrumentation.ts"];

function sourceFiles(entry: string): string[] {
  const stats = readdirSync(path.dirname(entry), { withFileTypes: true }).find(
    (dirent) => dirent.name === path.basename(entry),
  );
  if (!stats?.isDirectory()) return /\.(ts|tsx|mjs)$/.test(entry) && !/\.test\.tsx?$/.test(entry) ? [entry] : [];
  return readdirSync(entry).flatMap((name) => sourceFiles(path.join(entry, name)));
}

/** The event names the code logs: every `event: "name"` in a source file. */
function loggedEvents() {
  const names = roots
    .flatMap(sourceFiles)
    // The first name-like literal after `event:`: a mutation run's instrumented copy wraps it in counters ("123").
    .flatMap((file) => {
      const text = readFileSync(file, "utf8");
      // A kind of outbox row names its events in a map on one line: `events: { pending: "lead_pending", ... }`.
      const kinds = [...text.matchAll(/\bevents: [^\n]*/g)].flatMap(([line]) =>
        [...line.matchAll(/"([a-z][a-z0-9_]*)"/g)].map((match) => match[1]!),
      );
      return [...[...text.matchAll(/\bevent: [^\n]*?"([a-z][a-z0-9_]*)"/g)].map((match) => match[1]!), ...kinds];
    });
  return [...new Set(names)].sort();
}

/** The event names docs/operating.md's log table lists: the backticked names of its first column. */
function documentedEvents() {
  const doc = readFileSync("docs/operating.md", "utf8");
  const section = doc.slice(doc.indexOf("## Log lines"), doc.indexOf("\n## ", doc.indexOf("## Log lines") + 1));
  const firstCells = section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    // "`submission`, outcome `failed`": the outcome is a field of the event, not an event.
    .map((line) => line.split("|")[1]!.split("outcome")[0]!);
  const names = firstCells.flatMap((cell) => [...cell.matchAll(/`([a-z0-9_]+)`/g)].map((match) => match[1]!));
  return [...new Set(names)].sort();
}

describe("the log table in docs/operating.md", () => {
  it("lists every event the code logs, and no event the code does not", () => {
    const logged = loggedEvents();
    // Its working twin: the search finds the events it must (one per kind of file).
    expect(logged).toEqual(expect.arrayContaining(["submission", "not_found", "startup_failed", "consent_revoked"]));
    expect(documentedEvents()).toStrictEqual(logged);
  });
});
