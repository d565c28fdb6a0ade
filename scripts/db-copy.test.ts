import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordConsent } from "@/server/consent/consent-store";
import { renewConsent, revokeConsent } from "@/server/leads/consent-changes";
import { disclosureOf } from "@/server/consent/disclosure";
import { connect, sqliteFile } from "@/server/db/connect";
import type { Database } from "@/server/db/schema";
import { SQLite } from "@/server/db/sqlite-driver";
import { insertClaimed, newClaim, settle } from "@/server/leads/lead-store";
import { startPostgresServer, type PostgresServer } from "@/tests/support/postgres-server";
import { waitlistLead } from "@/tests/support/waitlist-lead";
import { copiedTables, copyDatabase } from "./db-copy-command";

/** A site's SQLite file with something in every table, copied into a real Postgres. */
let postgres: PostgresServer;
let dataDir: string;

beforeAll(async () => {
  postgres = await startPostgresServer();
  dataDir = await mkdtemp(path.join(tmpdir(), "sous-copy-"));
  const source = await connect({ DATA_DIR: dataDir, DATABASE_URL: undefined });
  const texts = [
    disclosureOf("I agree, first wording."),
    disclosureOf('I agree, "second" wording,\nwith a line break.'),
  ];
  for (let i = 0; i < 1_203; i += 1) {
    const phone = `+1555700${String(i).padStart(4, "0")}`;
    const lead = waitlistLead(phone, { created_at: 1_000 + i, state: i % 5 === 0 ? "dead" : "pending" });
    await source.db.transaction().execute(async (db) => {
      await insertClaimed({ ...source, db }, lead, newClaim(0, 0));
      await recordConsent(
        db,
        {
          phone,
          ip: i % 2 ? "203.0.113.5" : null,
          userAgent: "Mozilla/5.0 (X11)",
          pageUrl: "https://sous.example/signup",
          javascript: i % 2 === 0,
          disclosure: texts[i % 2]!,
          shownVersion: null,
        },
        lead.id,
        2_000 + i,
      );
    });
    if (i % 3 === 0) {
      await settle(source, lead, newClaim(0, 0), { state: "delivered", delivered_at: 3_000 + i, dedupe_key: null }, [
        { at: 2_500 + i, status: 503, failure: "status", duration_ms: 12, sender: "visitor" },
        { at: 3_000 + i, status: 200, failure: null, duration_ms: 9, sender: "pass" },
      ]);
    }
    if (i % 7 === 0)
      await revokeConsent(source, { phone, channel: "sms", source: "workflow", messageId: `SM${i}`, at: 4_000 + i });
    if (i % 14 === 0) await renewConsent(source, { phone, messageId: `SMstart${i}`, at: 4_500 + i });
  }
  await source.db.insertInto("alerts").values({ kind: "failing", form: "waitlist", last_sent_at: 5_000 }).execute();
  await source.db.insertInto("receivers").values({ form: "waitlist", failing_since: 5_000 }).execute();
  await source.db
    .insertInto("alert_states")
    .values({ form: "waitlist", reported: "failing", reported_at: 5_000, failures: 2, first_failure_at: 4_000 })
    .execute();
  await source.db.destroy();
  // destroy() does not wait for the checkpointer's worker, which may still copy the WAL into the file a moment
  // later: the WAL copied and emptied here first, "as it was" is measured on a file nothing writes to.
  const settled = new SQLite(sqliteFile(dataDir));
  settled.pragma("busy_timeout = 5000");
  settled.pragma("wal_checkpoint(TRUNCATE)");
  settled.close();
}, 120_000);

afterAll(async () => {
  await postgres?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const sha256 = async (file: string) =>
  createHash("sha256")
    .update(await readFile(file))
    .digest("hex");

async function tablesOf(db: Kysely<Database>) {
  const keys: Record<string, string[]> = {
    disclosures: ["version"],
    leads: ["id"],
    lead_attempts: ["lead_id", "number"],
    consents: ["id"],
    consent_revocations: ["id"],
    consent_renewals: ["id"],
    alerts: ["kind", "form"],
    receivers: ["form"],
    alert_states: ["form"],
  };
  const all: Record<string, unknown[]> = {};
  for (const table of copiedTables) {
    let query = db.selectFrom(table).selectAll();
    for (const column of keys[table]!) query = query.orderBy(column as never);
    all[table] = await query.execute();
  }
  return all;
}

describe("npm run db:copy", () => {
  it("copies every table from SQLite into Postgres, row for row and field for field, leaving the file as it was", async () => {
    const before = await sha256(sqliteFile(dataDir));
    const copied = await copyDatabase({ dataDir, databaseUrl: postgres.url });
    expect(await sha256(sqliteFile(dataDir))).toBe(before);
    expect(copied).toMatchObject({
      disclosures: 2,
      leads: 1_203,
      consents: 1_203,
      consent_revocations: 172,
      alerts: 1,
      receivers: 1,
      alert_states: 1,
    });
    expect(copied.lead_attempts).toBe(401 * 2);

    const source = await connect({ DATA_DIR: dataDir, DATABASE_URL: undefined });
    // Read as the server reads Postgres (its numbers as numbers).
    const { db: target } = await connect({ DATA_DIR: dataDir, DATABASE_URL: postgres.url });
    try {
      const [from, to] = [await tablesOf(source.db), await tablesOf(target)];
      for (const table of copiedTables) expect(to[table], table).toStrictEqual(from[table]);
      // The evidence, one record read as a carrier's auditor would: every field.
      const record = (to.consents as Array<Record<string, unknown>>).find((row) => row.phone === "+15557000007");
      expect(record).toStrictEqual({
        id: expect.stringMatching(/^con_/),
        phone: "+15557000007",
        consented_at: 2_007,
        ip: "203.0.113.5",
        user_agent: "Mozilla/5.0 (X11)",
        page_url: "https://sous.example/signup",
        javascript: 0,
        lead_id: expect.stringMatching(/^msg_/),
        disclosure_version: disclosureOf('I agree, "second" wording,\nwith a line break.').version,
        puts_in_force: 1,
      });
      expect(to.consent_renewals).toHaveLength(86);
    } finally {
      await source.db.destroy();
      await target.destroy();
    }
  }, 120_000);

  it("refuses a Postgres that already holds rows, and changes nothing there", async () => {
    const { db: target } = await connect({ DATA_DIR: dataDir, DATABASE_URL: postgres.url });
    try {
      const before = await tablesOf(target);
      await expect(copyDatabase({ dataDir, databaseUrl: postgres.url })).rejects.toThrow(
        /already holds rows \(disclosures: 2, leads: 1203, .*copy into an empty database only/,
      );
      expect(await tablesOf(target)).toStrictEqual(before);
    } finally {
      await target.destroy();
    }
  }, 60_000);

  it("refuses a folder without a SQLite database", async () => {
    await expect(
      copyDatabase({ dataDir: path.join(dataDir, "nothing-here"), databaseUrl: postgres.url }),
    ).rejects.toThrow("No SQLite database at");
  });
});
