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
import { migrations } from "./index";

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
