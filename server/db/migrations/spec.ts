import {
  PostgresAdapter,
  sql,
  type ColumnDataType,
  type ColumnDefinitionBuilder,
  type Kysely,
  type Migration,
} from "kysely";

/**
 * A migration as data (decision 0005): tables with columns as SQL reads them, columns added to earlier tables, indexes,
 * the SQL that fills a new table, and Postgres-only steps with their undo.
 */
export type MigrationSpec = {
  tables?: Record<string, Table>;
  alter?: Record<string, { columns: Record<string, Column> }>;
  indexes?: Record<string, Index & { on: string }>;
  /** Renamed first (a table, then its columns); named back last on the way down. */
  rename?: Record<string, { to?: string; columns?: Record<string, string> }>;
  /** `postgres` where its SQL differs; `undo` on the way down, once dropped columns are back. */
  fill?: { why: string; sql: string; postgres?: string; undo?: string }[];
  /** Dropped after the fill, their indexes first; added back (nullable but for a default) on the way down. */
  drop?: Record<string, { columns: Record<string, string>; indexes?: Record<string, Index> }>;
  /** Run first on the way down. */
  postgres?: { why: string; sql: string; undo: string }[];
};
/** New rows take the default; rows already there take this column's value. */
type Column = { why?: string; spec: string; existingRowsFrom?: string };
type Table = { why?: string; columns: Record<string, string>; primaryKey?: string[]; indexes?: Record<string, Index> };
type Index = { why?: string; columns: string[]; unique?: boolean };

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
  for (const [name, { columns, unique }] of Object.entries(indexes)) {
    const index = db.schema.createIndex(name).on(table).columns(columns);
    await (unique ? index.unique() : index).execute();
  }
}

export function migrationOf(spec: MigrationSpec): Migration {
  const tables = Object.entries(spec.tables ?? {});
  const added = Object.entries(spec.alter ?? {}).flatMap(([table, { columns }]) =>
    Object.entries(columns).map(([column, { spec, existingRowsFrom }]) => ({ table, column, spec, existingRowsFrom })),
  );
  const indexes = Object.entries(spec.indexes ?? {});
  const renamed = Object.entries(spec.rename ?? {});
  const dropped = Object.entries(spec.drop ?? {});
  const onPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;
  const postgres = (db: Kysely<unknown>) => (onPostgres(db) ? (spec.postgres ?? []) : []);
  return {
    async up(db) {
      for (const [from, { to = from, columns = {} }] of renamed) {
        if (to !== from) await db.schema.alterTable(from).renameTo(to).execute();
        for (const [column, name] of Object.entries(columns))
          await db.schema.alterTable(to).renameColumn(column, name).execute();
      }
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
      for (const fill of spec.fill ?? []) await sql.raw((onPostgres(db) && fill.postgres) || fill.sql).execute(db);
      for (const [table, { columns, indexes = {} }] of dropped) {
        for (const name of Object.keys(indexes)) await db.schema.dropIndex(name).execute();
        for (const column of Object.keys(columns)) await db.schema.alterTable(table).dropColumn(column).execute();
      }
      for (const { sql: statement } of postgres(db)) await sql.raw(statement).execute(db);
    },
    async down(db) {
      for (const { undo } of postgres(db).toReversed()) await sql.raw(undo).execute(db);
      for (const [table, { columns, indexes }] of dropped.toReversed()) {
        for (const [column, spec] of Object.entries(columns))
          await db.schema
            .alterTable(table)
            .addColumn(column, ...columnOf(/ default /.test(spec) ? spec : spec.replace(" not null", "")))
            .execute();
        await createIndexes(db, table, indexes);
      }
      for (const { undo } of (spec.fill ?? []).toReversed()) if (undo) await sql.raw(undo).execute(db);
      for (const [name] of indexes.toReversed()) await db.schema.dropIndex(name).execute();
      for (const { table, column } of added.toReversed())
        await db.schema.alterTable(table).dropColumn(column).execute();
      for (const [name] of tables.toReversed()) await db.schema.dropTable(name).execute();
      for (const [from, { to = from, columns = {} }] of renamed.toReversed()) {
        for (const [column, name] of Object.entries(columns))
          await db.schema.alterTable(to).renameColumn(name, column).execute();
        if (to !== from) await db.schema.alterTable(to).renameTo(from).execute();
      }
    },
  };
}

export type SpecifiedTable = { name: string; key: string[]; refersTo: string[] };

/** In an order their foreign keys allow, each with its key: what a copy of the whole database goes by. */
export function specifiedTables(specs: readonly MigrationSpec[]): SpecifiedTable[] {
  const found = new Map<string, SpecifiedTable>();
  const refersIn = (spec: string) => [...spec.matchAll(/ references (\w+)\./g)].map(([, table]) => table!);
  for (const spec of specs) {
    for (const [name, table] of Object.entries(spec.tables ?? {})) {
      const specs = Object.entries(table.columns);
      const key = table.primaryKey ?? specs.filter(([, spec]) => / primary key/.test(spec)).map(([column]) => column);
      if (!key.length) throw new Error(`Table ${name} has no primary key: a copy could not page through it`);
      found.set(name, { name, key, refersTo: specs.flatMap(([, spec]) => refersIn(spec)) });
    }
    for (const [name, { columns }] of Object.entries(spec.alter ?? {}))
      for (const { spec } of Object.values(columns)) found.get(name)!.refersTo.push(...refersIn(spec));
    for (const [from, { to = from, columns = {} }] of Object.entries(spec.rename ?? {})) {
      const table = found.get(from)!;
      found.delete(from);
      found.set(to, { name: to, key: table.key.map((column) => columns[column] ?? column), refersTo: table.refersTo });
      for (const other of found.values()) other.refersTo = other.refersTo.map((name) => (name === from ? to : name));
    }
  }
  const ordered: SpecifiedTable[] = [];
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
