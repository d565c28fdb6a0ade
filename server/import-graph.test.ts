import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFilesUnder } from "@/tests/support/source-files";

/**
 * The layering docs/architecture.md promises for server/: each row of its
 * "server/, by job" table (folders, or files at server/'s top) imports only
 * from the rows below it, and no file's imports run in a circle.
 */
const doc = readFileSync("docs/architecture.md", "utf8");
const table = doc.slice(doc.indexOf("## `server/`, by job"), doc.indexOf("### Sending, for every kind"));
const rows = table
  .split("\n")
  .filter((line) => line.startsWith("| `"))
  .map((line) => [...line.split("|")[1]!.matchAll(/`([\w./-]+)`/g)].map(([, unit]) => unit!.replace(/\/$/, "")));

const files = sourceFilesUnder("server");

/** The row a file of server/ belongs to: its folder's, or its own name's at server/'s top. */
const unitOf = (file: string) => path.relative("server", file).split(path.sep)[0]!;
const rowOf = (file: string) => rows.findIndex((units) => units.includes(unitOf(file)));

/** The files of server/ a file imports, resolved. */
function importsOf(file: string) {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+["']([^"']+)["']/g)].map(
    ([, specifier]) => specifier!,
  );
  return specifiers
    .map((specifier) =>
      specifier.startsWith("@/server/")
        ? specifier.slice(2)
        : specifier.startsWith(".")
          ? path.join(path.dirname(file), specifier)
          : undefined,
    )
    .filter((target): target is string => target !== undefined)
    .map((target) =>
      [`${target}.ts`, `${target}.mjs`, `${target}/index.ts`, target].find((candidate) => files.includes(candidate)),
    )
    .filter((target): target is string => target !== undefined);
}

describe("server/'s import graph", () => {
  it("is read from the doc's table and the code, every file in a row", () => {
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.length).toBeLessThanOrEqual(9);
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((file) => rowOf(file) === -1)).toStrictEqual([]);
    // Its working twin: the imports are found.
    expect(importsOf("server/outbox/send.ts")).toContain("server/outbox/outbox-store.ts");
  });

  it("has no arrow running back up: each row imports only from the rows below it", () => {
    const upward = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => unitOf(target) !== unitOf(file) && rowOf(target) <= rowOf(file))
        .map((target) => `${file} -> ${target}`),
    );
    expect(upward).toStrictEqual([]);
  });

  it("has no circle", () => {
    const graph = new Map(files.map((file) => [file, importsOf(file)]));
    const circles: string[] = [];
    const state = new Map<string, "visiting" | "done">();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "visiting") {
        circles.push([...trail.slice(trail.indexOf(file)), file].join(" -> "));
        return;
      }
      state.set(file, "visiting");
      for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
      state.set(file, "done");
    };
    for (const file of files) visit(file, []);
    expect(circles).toStrictEqual([]);
  });
});
