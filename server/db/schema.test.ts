import ts from "typescript";
import { describe, expect, it } from "vitest";
import { plans } from "./migrations";

/**
 * server/db/schema.ts is what the code believes the tables are; the
 * migrations are what the databases hold. Read side by side, column by
 * column, they cannot drift: a table, a column, its type, whether it may be
 * null and whether the database fills it (a default: Generated in Kysely).
 */

type Column = { type: "string" | "number"; nullable: boolean; generated: boolean };

/** Every table and column the migrations make, as the schema must declare them. */
function migrated() {
  const tables: Record<string, Record<string, Column>> = {};
  const columnOf = (spec: string): Column => ({
    type: spec.startsWith("text") ? "string" : "number",
    nullable: !/ not null| primary key/.test(spec),
    generated: / default /.test(spec),
  });
  for (const plan of Object.values(plans)) {
    for (const [name, table] of Object.entries(plan.tables ?? {}))
      tables[name] = Object.fromEntries(
        Object.entries(table.columns).map(([column, spec]) => [column, columnOf(spec)]),
      );
    for (const [name, { columns }] of Object.entries(plan.alter ?? {}))
      for (const [column, { spec }] of Object.entries(columns)) tables[name]![column] = columnOf(spec);
  }
  return tables;
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
    expect(Object.keys(fromMigrations)).toHaveLength(20);
    expect(declared()).toStrictEqual(fromMigrations);
  }, 60_000);
});
