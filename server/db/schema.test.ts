import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { startPostgresServer } from "@/tests/support/postgres-server";
import { connect, type Store } from "./connect";
import { specs } from "./migrations";

/**
 * server/db/schema.ts is what the code believes the tables are; the
 * migrations are what the databases hold. Read side by side, column by
 * column, they cannot drift: a table, a column, its type, whether it may be
 * null and whether the database fills it (a default: Generated in Kysely).
 */

type Column = { type: "string" | "number"; nullable: boolean; generated: boolean };

/** Every table and column the migrations make, as the schema must declare them. */
function migrated(engine?: "sqlite" | "postgres") {
  const tables: Record<string, Record<string, Column>> = {};
  // SQLite lets NULL into a primary key that is not an integer and not declared not null, a fault it keeps for old
  // files' sake (sqlite.org/lang_createtable.html, "the PRIMARY KEY"); its catalogue says so. The code never writes one.
  const nullKey = (spec: string) => engine === "sqlite" && / primary key/.test(spec);
  const columnOf = (spec: string): Column => ({
    type: spec.startsWith("text") ? "string" : "number",
    nullable: !/ not null/.test(spec) && (nullKey(spec) || !/ primary key/.test(spec)),
    generated: / default /.test(spec),
  });
  for (const spec of Object.values(specs)) {
    for (const [name, table] of Object.entries(spec.tables ?? {}))
      tables[name] = Object.fromEntries(
        Object.entries(table.columns).map(([column, spec]) => [column, columnOf(spec)]),
      );
    for (const [name, { columns }] of Object.entries(spec.alter ?? {}))
      for (const [column, { spec }] of Object.entries(columns)) tables[name]![column] = columnOf(spec);
    for (const [from, { to = from, columns = {} }] of Object.entries(spec.rename ?? {})) {
      const renamed = Object.entries(tables[from]!).map(([column, kept]) => [columns[column] ?? column, kept]);
      delete tables[from];
      tables[to] = Object.fromEntries(renamed);
    }
    for (const [name, { columns }] of Object.entries(spec.drop ?? {}))
      for (const column of Object.keys(columns)) delete tables[name]![column];
  }
  return tables;
}

/** The tables and columns a real database holds once migrated, as its own catalogue lists them (Kysely's left aside). */
async function held({ db }: Store) {
  const tables: Record<string, Record<string, Column>> = {};
  for (const table of await db.introspection.getTables())
    tables[table.name] = Object.fromEntries(
      table.columns.map((column) => [
        column.name,
        {
          type: /^(text|varchar)$/i.test(column.dataType) ? "string" : "number",
          nullable: column.isNullable,
          generated: column.hasDefaultValue,
        } satisfies Column,
      ]),
    );
  return tables;
}

/** Each table or column where two readings differ, named with both sides, so a failure reads as a list. */
function differences(actual: Record<string, Record<string, Column>>, expected: Record<string, Record<string, Column>>) {
  const out: string[] = [];
  for (const table of new Set([...Object.keys(actual), ...Object.keys(expected)]))
    for (const column of new Set([...Object.keys(actual[table] ?? {}), ...Object.keys(expected[table] ?? {})])) {
      const [is, planned] = [actual[table]?.[column], expected[table]?.[column]];
      if (JSON.stringify(is) !== JSON.stringify(planned))
        out.push(`${table}.${column}: holds ${JSON.stringify(is)}, the migrations say ${JSON.stringify(planned)}`);
    }
  return out;
}

/** The Database type of schema.ts, read by TypeScript itself: each column's type, with its aliases resolved. */
function declared() {
  const file = "server/db/schema.ts";
  const program = ts.createProgram([file], { strict: true, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const database = source.statements.find(
    (statement): statement is ts.TypeAliasDeclaration =>
      ts.isTypeAliasDeclaration(statement) && statement.name.text === "Database",
  )!;
  const tables: Record<string, Record<string, Column>> = {};
  for (const table of checker.getTypeAtLocation(database).getProperties()) {
    const columns: Record<string, Column> = {};
    for (const column of checker.getTypeOfSymbol(table).getProperties()) {
      const node = column.valueDeclaration as ts.PropertySignature;
      const written = node.type!.getText(source);
      const generated = written.startsWith("Generated<");
      // Generated<T> is what the database fills: T is the type a row reads.
      const type = generated
        ? checker.getTypeFromTypeNode((node.type as ts.TypeReferenceNode).typeArguments![0]!)
        : checker.getTypeOfSymbol(column);
      const parts = type.isUnion() ? type.types : [type];
      const kinds = new Set(
        parts
          .filter((part) => !(part.flags & ts.TypeFlags.Null))
          .map((part) =>
            part.flags & ts.TypeFlags.NumberLike
              ? "number"
              : part.flags & ts.TypeFlags.StringLike
                ? "string"
                : checker.typeToString(part),
          ),
      );
      expect([...kinds], `${table.name}.${column.name}: ${written}`).toHaveLength(1);
      columns[column.name] = {
        type: [...kinds][0] as Column["type"],
        nullable: parts.some((part) => part.flags & ts.TypeFlags.Null),
        generated,
      };
    }
    tables[table.name] = columns;
  }
  return tables;
}

describe("server/db/schema.ts", () => {
  it("declares every table and column the migrations make, with its type, its null and its default, and nothing else", () => {
    const fromMigrations = migrated();
    expect(Object.keys(fromMigrations)).toHaveLength(25);
    expect(declared()).toStrictEqual(fromMigrations);
  }, 60_000);

  // What the code is checked against, compared with what each engine holds: the specs are the bridge, read by both.
  it.each(["sqlite", "postgres"] as const)(
    "is what a %s database holds once migrated: every table and column, its type, its null and its default",
    async (engine) => {
      const dataDir = await mkdtemp(path.join(tmpdir(), "sous-schema-"));
      const postgres = engine === "postgres" ? await startPostgresServer() : undefined;
      const store = await connect({ DATA_DIR: dataDir, DATABASE_URL: postgres?.url });
      try {
        expect(differences(await held(store), migrated(engine))).toStrictEqual([]);
      } finally {
        await store.db.destroy();
        await postgres?.stop();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
