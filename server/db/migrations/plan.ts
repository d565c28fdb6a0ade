import {
  PostgresAdapter,
  sql,
  type ColumnDataType,
  type ColumnDefinitionBuilder,
  type Kysely,
  type Migration,
} from "kysely";

/**
 * A migration as data: the tables it creates, each with its columns written
 * as SQL reads them ("text not null default 0"), its primary key when it
 * spans columns, and its indexes; the columns it adds to tables an earlier
 * migration made (`alter`), with the value the rows already there take when it
 * is not the default; the indexes it adds to those tables; and the SQL that
 * fills a new table from rows already there; and what only Postgres has
 * (an index of an extension's kind), each with the statement that undoes it.
 * `why` says what a table, a column, an index, a fill or a step is for.
 */
export type MigrationPlan = {
  tables?: Record<string, Table>;
  alter?: Record<string, { columns: Record<string, Column> }>;
  indexes?: Record<string, Index & { on: string }>;
  /** SQL both engines read alike, run once the tables, columns and indexes exist: a new table filled from the rows already there. */
  fill?: { why: string; sql: string }[];
  /** Postgres only, run last: what SQLite has no counterpart for, and the statement that undoes it (run first on the way down). */
  postgres?: { why: string; sql: string; undo: string }[];
};
/** `existingRowsFrom`: the column whose value the rows already there take (new rows take the default). */
type Column = { why?: string; spec: string; existingRowsFrom?: string };
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
export function migrationOf(plan: MigrationPlan): Migration {
  const tables = Object.entries(plan.tables ?? {});
  const added = Object.entries(plan.alter ?? {}).flatMap(([table, { columns }]) =>
    Object.entries(columns).map(([column, { spec, existingRowsFrom }]) => ({ table, column, spec, existingRowsFrom })),
  );
  const indexes = Object.entries(plan.indexes ?? {});
  const postgres = (db: Kysely<unknown>) =>
    db.getExecutor().adapter instanceof PostgresAdapter ? (plan.postgres ?? []) : [];
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
      for (const { table, column, spec, existingRowsFrom } of added) {
        await db.schema
          .alterTable(table)
          .addColumn(column, ...columnOf(spec))
          .execute();
        if (existingRowsFrom)
          await (db as Kysely<Record<string, Record<string, unknown>>>)
            .updateTable(table)
            .set((eb) => ({ [column]: eb.ref(existingRowsFrom) }))
            .execute();
      }
      for (const [name, { on, ...index }] of indexes) await createIndexes(db, on, { [name]: index });
      for (const { sql: statement } of plan.fill ?? []) await sql.raw(statement).execute(db);
      for (const { sql: statement } of postgres(db)) await sql.raw(statement).execute(db);
    },
    async down(db) {
      for (const { undo } of postgres(db).toReversed()) await sql.raw(undo).execute(db);
      // A table's own indexes go with it.
      for (const [name] of indexes.toReversed()) await db.schema.dropIndex(name).execute();
      for (const { table, column } of added.toReversed())
        await db.schema.alterTable(table).dropColumn(column).execute();
      for (const [name] of tables.toReversed()) await db.schema.dropTable(name).execute();
    },
  };
}

/** A table the migrations create: its name, the columns that key a row, and the tables its rows refer to. */
export type PlannedTable = { name: string; key: string[]; refersTo: string[] };

/**
 * The tables a list of plans creates, in an order their foreign keys allow
 * (a table after every table it refers to, else in the order they were
 * created), each with its key: what a copy of the whole database goes by.
 */
export function plannedTables(plans: readonly MigrationPlan[]): PlannedTable[] {
  const found = new Map<string, PlannedTable>();
  const refersIn = (spec: string) => [...spec.matchAll(/ references (\w+)\./g)].map(([, table]) => table!);
  for (const plan of plans) {
    for (const [name, table] of Object.entries(plan.tables ?? {})) {
      const specs = Object.entries(table.columns);
      const key = table.primaryKey ?? specs.filter(([, spec]) => / primary key/.test(spec)).map(([column]) => column);
      if (!key.length) throw new Error(`Table ${name} has no primary key: a copy could not page through it`);
      found.set(name, { name, key, refersTo: specs.flatMap(([, spec]) => refersIn(spec)) });
    }
    for (const [name, { columns }] of Object.entries(plan.alter ?? {}))
      for (const { spec } of Object.values(columns)) found.get(name)!.refersTo.push(...refersIn(spec));
  }
  const ordered: PlannedTable[] = [];
  const waiting = [...found.values()];
  while (waiting.length) {
    const next = waiting.findIndex((table) =>
      table.refersTo.every((target) => target === table.name || ordered.some(({ name }) => name === target)),
    );
    if (next < 0)
      throw new Error(`Tables ${waiting.map(({ name }) => name).join(", ")} refer to each other in a circle`);
    ordered.push(...waiting.splice(next, 1));
  }
  return ordered;
}
