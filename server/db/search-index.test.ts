import { Kysely, PostgresDialect, sql, type CompiledQuery } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { leadIdsNamed } from "@/server/outbox/outbox-store";
import { startPostgresCluster, type PostgresServer } from "@/tests/support/postgres-server";
import { connect } from "./connect";
import { migrations } from "./migrations";
import type { Database } from "./schema";
import type { Store } from "./store";

/**
 * The console's search by a name on Postgres (migration 0016, decision 0017):
 * by pg_trgm's index where the role may create the extension, by reading the
 * leads where it may not, said once per start, and by index again once the
 * host allows it.
 */
let postgres: PostgresServer;
beforeAll(async () => {
  // A cluster of its own: it makes roles, which every database of a cluster shares.
  postgres = await startPostgresCluster();
}, 60_000);
afterAll(() => postgres?.stop());

const urlOf = (user: string, database: string) =>
  postgres.url.replace("postgres@", `${user}@`).replace(/\/postgres$/, `/${database}`);

/** Runs statements as the cluster's superuser, in this database. */
async function asSuperuser(database: string, statements: string[]) {
  const client = new pg.Client({ connectionString: urlOf("postgres", database) });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A database made by the superuser, its public schema open to `role`, who
 * may create the extension only when `createOnDatabase`: a host that keeps
 * extensions to itself, as a managed service may.
 */
async function databaseFor(role: string, { createOnDatabase }: { createOnDatabase: boolean }) {
  await asSuperuser("postgres", [`create role ${role} login`, `create database ${role}_db`]);
  await asSuperuser(`${role}_db`, [
    `grant create on schema public to ${role}`,
    ...(createOnDatabase ? [`grant create on database ${role}_db to ${role}`] : []),
  ]);
  return urlOf(role, `${role}_db`);
}

const warnings = (spy: { mock: { calls: unknown[][] } }) =>
  spy.mock.calls.map((call) => JSON.parse(String(call[0])) as Record<string, unknown>);

/** The leads of the waitlist, each a name of its own, written as the store keeps them, then vacuumed. */
async function fillLeads(store: Store, count: number) {
  await sql`insert into outbox (id, receiver, payload, state, created_at, next_attempt_at, delivered_at)
    select 'msg_' || i, 'waitlist', json_build_object('phone', '+1415555' || lpad(i::text, 4, '0'), 'name', 'Chef ' || i)::text,
      'delivered', i, i, i
    from generate_series(1, ${count}) as i`.execute(store.db);
  // As autovacuum does after so many inserts: the rows GIN keeps in its pending list move into the index, which
  // the planner then prices as it is (with a long pending list, reading the table is cheaper).
  await sql`vacuum analyze outbox`.execute(store.db);
}

/** The statements this store sends, with their parameters: what the product runs, planned below by the same server. */
function recorded(url: string) {
  const sent: CompiledQuery[] = [];
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => void sent.push(event.query),
  });
  return { store: { db, engine: "postgres" as const, durable: async () => {} }, sent, pool };
}

async function planOf(pool: pg.Pool, query: CompiledQuery) {
  const { rows } = await pool.query<{ "QUERY PLAN": string }>(`explain ${query.sql}`, [...query.parameters]);
  return rows.map((row) => row["QUERY PLAN"]).join("\n");
}

describe("the search by a name on Postgres", () => {
  it("is planned on the trigram index the migration makes, with the statement leadIdsNamed sends", async () => {
    const url = await databaseFor("owner_role", { createOnDatabase: true });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const store = await connect({ DATA_DIR: "unused", DATABASE_URL: url });
    const { store: watched, sent, pool } = recorded(url);
    try {
      expect(warnings(warn).filter(({ event }) => event === "search_index_missing")).toStrictEqual([]);
      const { rows } = await sql<{ indexdef: string }>`
        select indexdef from pg_indexes where indexname = 'leads_kept_values'`.execute(store.db);
      expect(rows).toStrictEqual([
        { indexdef: expect.stringMatching(/ON public\.outbox USING gin \(lower\(payload\) gin_trgm_ops\)$/) },
      ]);
      await fillLeads(store, 5_000);

      expect(await leadIdsNamed(watched, { form: "waitlist", text: "CHEF 4321", limit: 450 })).toStrictEqual([
        "msg_4321",
      ]);
      const search = sent.find(({ sql: text }) => /lower\("payload"\) like/.test(text))!;
      expect(await planOf(pool, search)).toMatch(/Bitmap Index Scan on leads_kept_values/);
      // The escaped characters of a search keep the index: `like_escape` of constants is folded before planning.
      expect(await leadIdsNamed(watched, { form: "waitlist", text: "f 4_2%", limit: 450 })).toStrictEqual([]);
      expect(await planOf(pool, sent.at(-1)!)).toMatch(/Bitmap Index Scan on leads_kept_values/);
    } finally {
      warn.mockRestore();
      await watched.db.destroy();
      await store.db.destroy();
    }
  }, 60_000);

  it("still answers where the extension cannot be created, by reading the leads; says so at each start; and is indexed at the first start after the host allows it", async () => {
    const url = await databaseFor("plain_role", { createOnDatabase: false });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const opened: Store[] = [];
    try {
      const store = await connect({ DATA_DIR: "unused", DATABASE_URL: url });
      opened.push(store);
      const missing = {
        level: "warn",
        event: "search_index_missing",
        index: "leads_kept_values",
        reason: "pg_trgm may not be created by this role",
      };
      expect(warnings(warn)).toContainEqual(expect.objectContaining(missing));
      // Every migration ran, the last included: the block noted why and went on.
      const { rows: ran } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
        store.db,
      );
      expect(ran.map(({ name }) => name)).toStrictEqual(Object.keys(migrations));
      const { rows: extensions } = await sql`select 1 from pg_extension where extname = 'pg_trgm'`.execute(store.db);
      expect(extensions).toStrictEqual([]);

      await fillLeads(store, 5_000);
      const { store: watched, sent, pool } = recorded(url);
      opened.push(watched);
      expect(await leadIdsNamed(watched, { form: "waitlist", text: "chef 4321", limit: 450 })).toStrictEqual([
        "msg_4321",
      ]);
      expect(await planOf(pool, sent.at(-1)!)).toMatch(/Seq Scan on outbox/);

      // A second start says it again.
      warn.mockClear();
      opened.push(await connect({ DATA_DIR: "unused", DATABASE_URL: url }));
      expect(warnings(warn)).toContainEqual(expect.objectContaining(missing));

      // The host now lets the role create it: the next start makes the index, and says nothing.
      await asSuperuser("plain_role_db", ["grant create on database plain_role_db to plain_role"]);
      warn.mockClear();
      const again = await connect({ DATA_DIR: "unused", DATABASE_URL: url });
      opened.push(again);
      expect(warnings(warn).filter(({ event }) => event === "search_index_missing")).toStrictEqual([]);
      const { rows } = await sql`select 1 from pg_indexes where indexname = 'leads_kept_values'`.execute(again.db);
      expect(rows).toHaveLength(1);
      await sql`analyze outbox`.execute(again.db);
      expect(await planOf(pool, sent.at(-1)!)).toMatch(/Bitmap Index Scan on leads_kept_values/);
    } finally {
      warn.mockRestore();
      for (const store of opened) await store.db.destroy();
    }
  }, 60_000);
});
