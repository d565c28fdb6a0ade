import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * One owner per table: the file that holds its SQL. Every other file asks
 * that owner, so "who writes leads?" has one answer, and a lookup goes by
 * key through the owner's functions, never by a search of the values.
 */
const owners: Record<string, string> = {
  leads: "server/leads/lead-store.ts",
  lead_attempts: "server/leads/lead-store.ts",
  disclosures: "server/consent/consent-store.ts",
  consents: "server/consent/consent-store.ts",
  consent_revocations: "server/consent/consent-store.ts",
  consent_renewals: "server/consent/consent-store.ts",
  alerts: "server/alerts/alert-store.ts",
  receivers: "server/alerts/alert-store.ts",
  alert_states: "server/alerts/alert-store.ts",
  limit_counts: "server/rate-limit/limit-store.ts",
  invitations: "server/invitations/invitation-store.ts",
  invitation_waves: "server/invitations/invitation-store.ts",
  invitation_pace: "server/invitations/invitation-store.ts",
};

const sourceUnder = (entry: string): string[] =>
  statSync(entry).isDirectory()
    ? readdirSync(entry).flatMap((name) => sourceUnder(path.join(entry, name)))
    : /\.(ts|tsx|mts|mjs)$/.test(entry) && !/\.(test|spec)\.|\.d\.ts$/.test(entry)
      ? [entry]
      : [];

// The code that runs: everything but tests, and but the schema and migrations, which define the tables.
const files = ["server", "app", "lib", "components", "scripts", "instrumentation.ts", "middleware.ts"]
  .flatMap(sourceUnder)
  .filter((file) => !file.startsWith("server/db/migrations/") && file !== "server/db/schema.ts");

/** The tables a file's SQL names: as a query builder's table, or in a qualified column ("alert_states.failures"). */
function tablesIn(text: string) {
  const named = new Set<string>();
  for (const [, table] of text.matchAll(
    /\.(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|mergeInto)\(\s*["'`](\w+)/g,
  ))
    named.add(table!);
  for (const [, table] of text.matchAll(/["'`](\w+)\.\w+["'`]/g)) if (table! in owners) named.add(table!);
  for (const [, body] of text.matchAll(/sql`([^`]*)`/g))
    for (const table of Object.keys(owners)) if (new RegExp(`\\b${table}\\b`).test(body!)) named.add(table);
  return named;
}

describe("the tables' SQL", () => {
  const where = new Map<string, string[]>();
  for (const file of files)
    for (const table of tablesIn(readFileSync(file, "utf8"))) where.set(table, [...(where.get(table) ?? []), file]);

  it("is read from the code the site runs, every table of the schema among it", () => {
    expect(files.length).toBeGreaterThan(80);
    const schema = readFileSync("server/db/schema.ts", "utf8");
    const database = /export type Database = \{([^}]+)\}/.exec(schema)![1]!;
    expect([...database.matchAll(/(\w+): \w+Table;/g)].map(([, table]) => table).sort()).toStrictEqual(
      Object.keys(owners).sort(),
    );
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
