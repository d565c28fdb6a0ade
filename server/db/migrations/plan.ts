import type { ColumnDataType, ColumnDefinitionBuilder, Kysely, Migration } from "kysely";

/**
 * A migration as data: the tables it creates, each with its columns written
 * as SQL reads them ("text not null default 0"), its primary key when it
 * spans columns, and its indexes; the columns it adds to tables an earlier
 * migration made (`alter`); and the indexes it adds to those tables. `why`
 * says what a table, a column or an index is for.
 */
export type Plan = {
  tables?: Record<string, Table>;
  alter?: Record<string, { columns: Record<string, Column> }>;
  indexes?: Record<string, Index & { on: string }>;
};
type Column = { why?: string; spec: string };
type Table = { why?: string; columns: Record<string, string>; primaryKey?: string[]; indexes?: Record<string, Index> };
type Index = { why?: string; columns: string[] };

const TYPES: readonly ColumnDataType[] = ["text", "integer", "bigint"];

type Modifier = (column: ColumnDefinitionBuilder, match: RegExpExecArray) => ColumnDefinitionBuilder;
const MODIFIERS: [RegExp, Modifier][] = [
  [/^ primary key/, (column) => column.primaryKey()],
  [/^ not null/, (column) => column.notNull()],
  [/^ unique/, (column) => column.unique()],
  [/^ default (\d+)/, (column, [, value]) => column.defaultTo(Number(value))],
  [
    /^ references (\w+\.\w+)( on delete cascade)?/,
    (column, [, target, cascade]) =>
      cascade ? column.references(target!).onDelete("cascade") : column.references(target!),
  ],
];

/** A column written as SQL reads it, as Kysely's builder takes it; anything it cannot read is refused. */
export function columnOf(spec: string): [ColumnDataType, (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder] {
  const [type = ""] = spec.split(" ", 1);
  if (!TYPES.includes(type as ColumnDataType)) throw new Error(`Unknown column type in "${spec}"`);
  const steps: ((column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder)[] = [];
  let rest = spec.slice(type.length);
  while (rest) {
    const found = MODIFIERS.map(([pattern, modify]) => [pattern.exec(rest), modify] as const).find(([match]) => match);
    if (!found) throw new Error(`Cannot read "${rest.trim()}" in "${spec}"`);
    const [match, modify] = found;
    steps.push((column) => modify(column, match!));
    rest = rest.slice(match![0].length);
  }
  return [type as ColumnDataType, (column) => steps.reduce((built, step) => step(built), column)];
}

async function createIndexes(db: Kysely<unknown>, table: string, indexes: Record<string, Index> = {}) {
  for (const [name, { columns }] of Object.entries(indexes))
    await db.schema.createIndex(name).on(table).columns(columns).execute();
}

/** The migration a plan describes: up creates each table, column and index in order; down drops what up made, last first. */
export function migrationOf(plan: Plan): Migration {
  const tables = Object.entries(plan.tables ?? {});
  const added = Object.entries(plan.alter ?? {}).flatMap(([table, { columns }]) =>
    Object.entries(columns).map(([column, { spec }]) => ({ table, column, spec })),
  );
  const indexes = Object.entries(plan.indexes ?? {});
  return {
    async up(db) {
      for (const [name, table] of tables) {
        let create = db.schema.createTable(name);
        for (const [column, spec] of Object.entries(table.columns))
          create = create.addColumn(column, ...columnOf(spec));
        if (table.primaryKey) create = create.addPrimaryKeyConstraint(`${name}_pk`, table.primaryKey as never);
        await create.execute();
        await createIndexes(db, name, table.indexes);
      }
      // A column added to rows that exist needs a default when it is not null: both engines refuse it otherwise.
      for (const { table, column, spec } of added)
        await db.schema
          .alterTable(table)
          .addColumn(column, ...columnOf(spec))
          .execute();
      for (const [name, { on, ...index }] of indexes) await createIndexes(db, on, { [name]: index });
    },
    async down(db) {
      // A table's own indexes go with it.
      for (const [name] of indexes.toReversed()) await db.schema.dropIndex(name).execute();
      for (const { table, column } of added.toReversed())
        await db.schema.alterTable(table).dropColumn(column).execute();
      for (const [name] of tables.toReversed()) await db.schema.dropTable(name).execute();
    },
  };
}
