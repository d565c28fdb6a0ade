import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Dialect,
} from "kysely";
import { describe, expect, it } from "vitest";
import { migrations, specs } from "./index";
import { columnOf, specifiedTables } from "./spec";

const dialects: Record<string, Dialect> = {
  sqlite: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
  postgres: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
};

/** The statements a migration step sends, compiled for one engine without a server. */
async function statementsOf(engine: string, step: "up" | "down") {
  const sent: string[] = [];
  const db = new Kysely<unknown>({
    dialect: dialects[engine]!,
    log: (event) => void sent.push(event.query.sql),
  });
  for (const [name, migration] of Object.entries(migrations)) {
    sent.push(`-- ${name} ${step}`);
    await migration[step]?.(db);
  }
  await db.destroy();
  return sent.join(";\n") + ";\n";
}

// A deployed database has run these statements: a change to them is a new migration, never an edit.
describe("the committed migrations", () => {
  for (const engine of Object.keys(dialects)) {
    it(`send the statements they sent when committed (${engine})`, async () => {
      const ddl = (await statementsOf(engine, "up")) + (await statementsOf(engine, "down"));
      await expect(ddl).toMatchFileSnapshot(`./__snapshots__/${engine}.sql.snap`);
    });
  }
});

describe("a column as a spec writes it", () => {
  const compiled = (spec: string) => {
    const db = new Kysely<unknown>({ dialect: dialects.sqlite! });
    return db.schema
      .createTable("t")
      .addColumn("c", ...columnOf(spec))
      .compile().sql;
  };

  it("reads each modifier the migrations use, in any order", () => {
    expect(compiled("integer not null default 0")).toBe('create table "t" ("c" integer default 0 not null)');
    expect(compiled("text references leads.id on delete cascade not null")).toBe(
      'create table "t" ("c" text not null references "leads" ("id") on delete cascade)',
    );
    expect(compiled("text references leads.id")).toBe('create table "t" ("c" text references "leads" ("id"))');
    expect(compiled("bigint unique")).toBe('create table "t" ("c" bigint unique)');
    expect(compiled("text primary key")).toBe('create table "t" ("c" text primary key)');
  });

  it("refuses a type or a word it does not know, instead of leaving it out", () => {
    expect(() => columnOf("varchar not null")).toThrow('Unknown column type in "varchar not null"');
    expect(() => columnOf("text not nul")).toThrow('Cannot read "not nul" in "text not nul"');
    expect(() => columnOf("text default x")).toThrow('Cannot read "default x"');
    expect(() => columnOf("text nullable")).toThrow('Cannot read "nullable"');
  });
});

describe("the tables the migrations create, as a copy reads them", () => {
  it("are every table, each after the tables it refers to, with its key", () => {
    const tables = specifiedTables(Object.values(specs));
    expect(tables.map(({ name }) => name)).toStrictEqual([
      "disclosures",
      "consents",
      "consent_revocations",
      "alerts",
      "receivers",
      "alert_states",
      "limit_counts",
      "consent_renewals",
      "invitation_waves",
      "invitations",
      "invitation_pace",
      "operators",
      "operator_passkeys",
      "operator_sessions",
      "operator_links",
      "console_challenges",
      "operator_activity",
      "consent_standings",
      "limit_keys",
      "consent_messages",
      "outbox",
      "outbox_attempts",
      "outbox_pace",
      "lead_sources",
      "visits",
    ]);
    // Renamed by a later migration, a table keeps its key and its references under their new names.
    expect(tables.find(({ name }) => name === "outbox_attempts")).toStrictEqual({
      name: "outbox_attempts",
      key: ["outbox_id", "number"],
      refersTo: ["outbox"],
    });
    expect(tables.find(({ name }) => name === "consents")).toMatchObject({ key: ["id"], refersTo: ["disclosures"] });
  });

  it("put a table after one a later migration adds, a reference added by a column included", () => {
    const tables = specifiedTables([
      { tables: { child: { columns: { id: "text primary key", parent: "text references parent.id" } } } },
      { tables: { parent: { columns: { id: "text primary key" } } } },
      { tables: { other: { columns: { id: "text primary key" } } } },
      { alter: { other: { columns: { child: { spec: "text references child.id" } } } } },
    ]);
    expect(tables.map(({ name }) => name)).toStrictEqual(["parent", "child", "other"]);
    expect(tables[2]!.refersTo).toStrictEqual(["child"]);
  });

  it("wait for every table a table refers to, and take a table that refers to itself", () => {
    // Created last first: each must wait until the one it names is placed, not merely until something is.
    const tables = specifiedTables([
      { tables: { dish: { columns: { id: "text primary key", menu: "text references menu.id" } } } },
      { tables: { menu: { columns: { id: "text primary key", chef: "text references chef.id" } } } },
      { tables: { chef: { columns: { id: "text primary key", mentor: "text references chef.id" } } } },
    ]);
    expect(tables.map(({ name }) => name)).toStrictEqual(["chef", "menu", "dish"]);
    expect(tables[0]!.refersTo).toStrictEqual(["chef"]);
  });

  it("refuse a table without a key, and tables that refer to each other in a circle", () => {
    expect(() => specifiedTables([{ tables: { loose: { columns: { note: "text" } } } }])).toThrow(
      "Table loose has no primary key",
    );
    expect(() =>
      specifiedTables([
        { tables: { a: { columns: { id: "text primary key", b: "text references b.id" } } } },
        { tables: { b: { columns: { id: "text primary key", a: "text references a.id" } } } },
      ]),
    ).toThrow("Tables a, b refer to each other in a circle");
  });
});
