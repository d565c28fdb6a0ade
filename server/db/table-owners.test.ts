import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { copiedTables } from "@/scripts/db-copy-command";
import { sourceFilesUnder } from "@/tests/support/source-files";

/**
 * One owner per table: the file that holds its SQL, and says so by
 * exporting `ownedTables`. Every other file asks that owner, so "who writes
 * leads?" has one answer, and a lookup goes by key through the owner's
 * functions, never by a search of the values.
 */

// The code that runs: everything but tests, and but the schema and migrations, which define the tables.
const files = ["server", "app", "lib", "components", "scripts", "instrumentation.ts", "middleware.ts"]
  .flatMap(sourceFilesUnder)
  .filter((file) => !file.startsWith("server/db/migrations/") && file !== "server/db/schema.ts");

/** Each table, and the file that owns it: read from every `export const ownedTables = [...]`. */
const owners: Record<string, string> = {};
const ownersOf = new Map<string, string[]>();
for (const file of files) {
  const list = /export const ownedTables = \[([^\]]*)\]/.exec(readFileSync(file, "utf8"))?.[1];
  for (const [, table] of list?.matchAll(/"(\w+)"/g) ?? []) {
    owners[table!] = file;
    ownersOf.set(table!, [...(ownersOf.get(table!) ?? []), file]);
  }
}

const builderCall =
  /\.(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|mergeInto)\(\s*/g;

/** The tables a file's SQL names: as a query builder's table, or in a qualified column ("alert_states.failures"). */
function tablesIn(text: string) {
  const named = new Set<string>();
  for (const [, table] of text.matchAll(new RegExp(`${builderCall.source}["'\`](\\w+)`, "g"))) named.add(table!);
  for (const [, table] of text.matchAll(/["'`](\w+)\.\w+["'`]/g)) if (table! in owners) named.add(table!);
  for (const [, body] of text.matchAll(/sql`([^`]*)`/g))
    for (const table of Object.keys(owners)) if (new RegExp(`\\b${table}\\b`).test(body!)) named.add(table);
  return named;
}

describe("the tables' SQL", () => {
  const where = new Map<string, string[]>();
  for (const file of files)
    for (const table of tablesIn(readFileSync(file, "utf8"))) where.set(table, [...(where.get(table) ?? []), file]);

  it("is read from the code the site runs, where every table of the schema and of the migrations has one owner", () => {
    expect(files.length).toBeGreaterThan(80);
    const schema = readFileSync("server/db/schema.ts", "utf8");
    const database = /export type Database = \{([^}]+)\}/.exec(schema)![1]!;
    expect([...database.matchAll(/(\w+): \w+Table;/g)].map(([, table]) => table).sort()).toStrictEqual(
      Object.keys(owners).sort(),
    );
    expect(copiedTables.map(({ name }) => name).sort()).toStrictEqual(Object.keys(owners).sort());
    for (const [table, declaredBy] of ownersOf) expect(declaredBy, table).toHaveLength(1);
  });

  it("names a table by a variable in one file only: db:copy's, which reads every table from the migrations", () => {
    const dynamic = files.filter(
      (file) => [...readFileSync(file, "utf8").matchAll(new RegExp(`${builderCall.source}(?!["'\`])`, "g"))].length,
    );
    expect(dynamic).toStrictEqual(["scripts/db-copy-command.ts"]);
  });

  it.each(Object.entries(owners))("of %s is in one file, %s", (table, owner) => {
    expect(where.get(table)).toStrictEqual([owner]);
  });

  it("names no other table but Kysely's own, which the migration commands read", () => {
    const others = [...where].filter(([table]) => !(table in owners));
    expect(others).toStrictEqual([["kysely_migration", ["scripts/db-copy-command.ts", "scripts/db-migrate.ts"]]]);
  });

  it("is never a text search of a lead's values", () => {
    for (const file of files) expect(readFileSync(file, "utf8"), file).not.toMatch(/"payload",\s*"(?:i?like|~)/i);
  });
});
