import { countVisits, recordSource, visitOf } from "@/server/forms/source-store";
import { touchOf } from "@/server/web/visits";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Migrator, sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { smsTexts } from "@/lib/sms/program";
import { recordConsent } from "@/server/consent/consent-store";
import { renewConsent, revokeConsent } from "@/server/consent/consent-changes";
import { disclosureOf } from "@/server/consent/disclosure";
import { inTransaction, connect, sqliteFile, type Store } from "@/server/db/connect";
import { migrations } from "@/server/db/migrations";
import { checkpointersStopped } from "@/server/db/sqlite";
import type { Database } from "@/server/db/schema";
import { SQLite } from "@/server/db/sqlite-driver";
import { readEnv } from "@/server/env";
import { invitationPass } from "@/server/invitations/invitation-pass";
import { queueWave } from "@/server/invitations/waves";
import { newWebhookId, insertLead, settle, newClaim, reservePace } from "@/server/outbox/outbox-store";
import { consumeInDatabase, limitKey } from "@/server/forms/limit-store";
import { insertChallenge, insertPasskey, insertSession } from "@/server/operators/operator-store";
import { insertActivity } from "@/server/operators/activity-store";
import { addOperator, commandActor } from "@/server/operators/operators";
import { startInviteReceiver } from "@/tests/support/invite-receiver";
import { startPostgresServer, type PostgresServer } from "@/tests/support/postgres-server";
import { waitlistLead } from "@/tests/support/waitlist-lead";
import { copyDatabase, type Side } from "./db-copy-command";

/**
 * A site's SQLite file with rows in every table, after a launch wave, a
 * repeat sign-up, a STOP and a START, copied into a real Postgres and from
 * there into a new SQLite file.
 */
let postgres: PostgresServer;
let dataDir: string;
let backDir: string;
let receiver: Awaited<ReturnType<typeof startInviteReceiver>>;
// 13:00 in New York: inside the sending hours of the wave's numbers (212).
const afternoon = Date.parse("2026-11-27T18:00:00Z");
const invited = Array.from({ length: 10 }, (_, i) => `+1212555${String(100 + i).padStart(4, "0")}`);
const wave = (name: string) => ({
  name,
  selection: { phones: invited },
  text: () => smsTexts.invitation("https://sous.example/start"),
  now: Date.now(),
});
const pass = (store: Store) => invitationPass(store, readEnv(), { budgetMs: 10_000 });

beforeAll(async () => {
  receiver = await startInviteReceiver();
  vi.stubEnv("INVITE_WEBHOOK_URL", receiver.url);
  vi.stubEnv("INVITE_WEBHOOK_SECRET", "whsec_" + Buffer.from("invite-secret-for-tests-32-bytes").toString("base64"));
  vi.stubEnv("INVITE_URL", "https://sous.example/start");
  vi.stubEnv("INVITE_PER_MINUTE", "6000");
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(afternoon);
  postgres = await startPostgresServer();
  dataDir = await mkdtemp(path.join(tmpdir(), "sous-copy-"));
  backDir = await mkdtemp(path.join(tmpdir(), "sous-copy-back-"));
  const source = await connect({ DATA_DIR: dataDir, DATABASE_URL: undefined });
  const texts = [
    disclosureOf("I agree, first wording."),
    disclosureOf('I agree, "second" wording,\nwith a line break.'),
  ];
  for (let i = 0; i < 1_203; i += 1) {
    const phone = `+1555700${String(i).padStart(4, "0")}`;
    const lead = waitlistLead(phone, { created_at: 1_000 + i, state: i % 5 === 0 ? "dead" : "pending" });
    await inTransaction(source, async (db) => {
      await insertLead(db, lead, newClaim(0));
      await recordConsent(db, {
        evidence: {
          phone,
          ip: i % 2 ? "203.0.113.5" : null,
          userAgent: "Mozilla/5.0 (X11)",
          pageUrl: "https://sous.example/signup",
          javascript: i % 2 === 0,
          disclosure: texts[i % 2]!,
          shownVersion: null,
        },
        leadId: lead.id,
        at: 2_000 + i,
      });
    });
    if (i % 3 === 0) {
      await settle(source, {
        row: lead,
        answered: ["delivered"],
        claim: newClaim(0),
        change: { state: "delivered", delivered_at: 3_000 + i, dedupe_key: null },
        attempts: [
          { at: 2_500 + i, status: 503, failure: "status", duration_ms: 12, sender: "visitor" },
          { at: 3_000 + i, status: 200, failure: null, duration_ms: 9, sender: "pass" },
        ],
      });
    }
    if (i % 7 === 0)
      await revokeConsent(source, { phone, channel: "sms", source: "workflow", messageId: `SM${i}`, at: 4_000 + i });
    if (i % 14 === 0) await renewConsent(source, { phone, messageId: `SMstart${i}`, at: 4_500 + i });
  }
  // The launch: ten New York sign-ups, one of them twice (a repeat sign-up), a wave of them texted (one refused by
  // the carrier), a STOP from one after its invitation and a START from another.
  for (const [i, phone] of invited.entries()) {
    const evidence = {
      phone,
      ip: null,
      userAgent: null,
      pageUrl: null,
      javascript: false,
      disclosure: texts[0]!,
      shownVersion: null,
    };
    await recordConsent(source, { evidence, leadId: newWebhookId(), at: afternoon - 60_000 + i });
    if (i === 3) await recordConsent(source, { evidence, leadId: newWebhookId(), at: afternoon - 30_000 });
  }
  receiver.refuse(invited[5]!, 30_007);
  expect(await queueWave(source, wave("launch-1"))).toMatchObject({ queued: 10 });
  expect(await pass(source)).toMatchObject({ texted: 9, refused: 1 });
  await revokeConsent(source, {
    phone: invited[1]!,
    channel: "sms",
    source: "workflow",
    messageId: "SMstop",
    at: Date.now(),
  });
  await renewConsent(source, { phone: invited[2]!, messageId: "SMstart", at: Date.now() });
  await consumeInDatabase(source, { name: "phone", points: 3, duration: 3_600 }, invited[0]!);
  await limitKey(source, "person");
  await reservePace(source, "waitlist", Date.now(), { perMinute: 30, perDay: 500 });
  const touch = touchOf(new URLSearchParams("source=instagram&campaign=spring&landing_page=/"));
  await recordSource(source, { id: newWebhookId(), form: "waitlist", at: afternoon }, touch);
  await countVisits(source, [visitOf("/", touch, afternoon)]);
  await source.db.insertInto("alerts").values({ kind: "failing", form: "waitlist", last_sent_at: 5_000 }).execute();
  await source.db.insertInto("receivers").values({ form: "waitlist", failing_since: 5_000 }).execute();
  await source.db
    .insertInto("alert_states")
    .values({ form: "waitlist", reported: "failing", reported_at: 5_000, failures: 2, first_failure_at: 4_000 })
    .execute();
  // The console: an owner added (a link and an activity line), who registered a passkey and signed in, mid-ceremony.
  const { operator } = await addOperator(source, { email: "owner@sous.example", role: "owner", by: commandActor });
  await insertPasskey(source, {
    passkey: { id: "cred-owner", operatorId: operator.id, publicKey: "pk", counter: 3, transports: ["internal"] },
  });
  await insertSession(source, { operatorId: operator.id });
  await insertChallenge(source, { challenge: "c", purpose: "sign-in" });
  await source.db.destroy();
  // destroy() does not wait for the checkpointer's thread, whose connection may still copy the WAL into the file a
  // moment later: gone first, then the WAL copied and emptied, "as it was" is measured on a file nothing writes to.
  await checkpointersStopped();
  const settled = new SQLite(sqliteFile(dataDir));
  settled.pragma("busy_timeout = 5000");
  settled.pragma("wal_checkpoint(TRUNCATE)");
  settled.close();
}, 120_000);

afterAll(async () => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  await receiver?.close();
  await postgres?.stop();
  await rm(dataDir, { recursive: true, force: true });
  await rm(backDir, { recursive: true, force: true });
});

const sha256 = async (file: string) =>
  createHash("sha256")
    .update(await readFile(file))
    .digest("hex");

/**
 * Every table the database's own catalogue lists (Kysely's migration tables
 * aside), each with its rows in one order: by the whole row, so nothing here
 * depends on what db:copy knows of the tables.
 */
async function tablesOf(db: Kysely<Database>) {
  const all: Record<string, unknown[]> = {};
  for (const { name } of await db.introspection.getTables()) {
    const rows = await (db as unknown as Kysely<Record<string, Record<string, unknown>>>)
      .selectFrom(name)
      .selectAll()
      .execute();
    all[name] = rows
      .map((row) => Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return all;
}

const sqliteSide = (dir: string): Side => ({ engine: "sqlite", dataDir: dir });
const postgresSide = (): Side => ({ engine: "postgres", url: postgres.url });
const openSqlite = (dir: string) => connect({ DATA_DIR: dir, DATABASE_URL: undefined });
const openPostgres = () => connect({ DATA_DIR: dataDir, DATABASE_URL: postgres.url });

/** The second wave naming the same numbers: none queued, none texted, on the copy. */
async function onceEach(store: Store, name: string) {
  const before = receiver.received.length;
  const again = await queueWave(store, wave(name));
  expect(again).toMatchObject({ queued: 0 });
  expect(again!.plan.leftOut).toMatchObject({ invited: 10 });
  expect(await pass(store)).toMatchObject({ texted: 0, refused: 0 });
  expect(receiver.received.length).toBe(before);
}

describe("npm run db:copy", () => {
  it("copies every table from SQLite into Postgres and back into a new SQLite file, row for row, leaving the source as it was; the once-per-number rule holds on each copy", async () => {
    const before = await sha256(sqliteFile(dataDir));
    const copied = await copyDatabase({ from: sqliteSide(dataDir), to: postgresSide() });
    expect(await sha256(sqliteFile(dataDir))).toBe(before);
    expect(copied).toStrictEqual({
      disclosures: 2,
      consents: 1_203 + 11,
      consent_revocations: 173,
      alerts: 1,
      receivers: 1,
      alert_states: 1,
      limit_counts: 1,
      consent_renewals: 87,
      invitation_waves: 1,
      invitations: 10,
      invitation_pace: 1,
      outbox_pace: 1,
      lead_sources: 1,
      visits: 1,
      operators: 1,
      operator_passkeys: 1,
      operator_sessions: 1,
      operator_links: 1,
      console_challenges: 1,
      operator_activity: 1,
      limit_keys: 1,
      // One per workflow message: the 173 STOPs and 87 STARTs.
      consent_messages: 173 + 87,
      // Each number with a sign-up record, once: 1,214 records of 1,213 numbers.
      consent_standings: 1_203 + 10,
      // The leads and the ten invitations; each lead's two attempts, and each invitation's one.
      outbox: 1_203 + 10,
      outbox_attempts: 401 * 2 + 10,
    });

    const source = await openSqlite(dataDir);
    // Read as the server reads Postgres (its numbers as numbers).
    const target = await openPostgres();
    const from = await tablesOf(source.db);
    try {
      // Every table the catalogue lists holds rows, and arrived whole.
      expect(Object.keys(from).sort()).toStrictEqual(Object.keys(copied).sort());
      for (const [table, rows] of Object.entries(from)) expect(rows.length, table).toBeGreaterThan(0);
      const to = await tablesOf(target.db);
      expect(Object.keys(to).sort()).toStrictEqual(Object.keys(from).sort());
      for (const table of Object.keys(from)) expect(to[table], table).toStrictEqual(from[table]);
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
    } finally {
      await source.db.destroy();
    }

    // And back: Postgres into a new SQLite file, every row again.
    expect(await copyDatabase({ from: postgresSide(), to: sqliteSide(backDir) })).toStrictEqual(copied);
    const back = await openSqlite(backDir);
    try {
      const again = await tablesOf(back.db);
      expect(Object.keys(again).sort()).toStrictEqual(Object.keys(from).sort());
      for (const table of Object.keys(from)) expect(again[table], table).toStrictEqual(from[table]);
      // A second wave naming the same numbers texts none, on either copy.
      await onceEach(back, "launch-2-sqlite");
      await onceEach(target, "launch-2-postgres");
    } finally {
      await back.db.destroy();
      await target.db.destroy();
    }
  }, 180_000);

  it("refuses a target that already holds rows, and changes nothing there", async () => {
    const target = await openPostgres();
    try {
      const before = await tablesOf(target.db);
      await expect(copyDatabase({ from: sqliteSide(dataDir), to: postgresSide() })).rejects.toThrow(
        /already holds rows \(disclosures: 2, .*outbox: 1213, outbox_attempts: 812, outbox_pace: 1, lead_sources: 1, visits: 1\): copy into an empty database only/,
      );
      expect(await tablesOf(target.db)).toStrictEqual(before);
    } finally {
      await target.db.destroy();
    }
    await expect(copyDatabase({ from: postgresSide(), to: sqliteSide(backDir) })).rejects.toThrow(
      /SQLite database at .* already holds rows/,
    );
  }, 60_000);

  it("refuses a source or a target with a table no migration creates, copying nothing; the same databases without it copy", async () => {
    const strange = await mkdtemp(path.join(tmpdir(), "sous-copy-strange-"));
    try {
      // The source: a copy of the site's file with one table more.
      const copyOfSource = new SQLite(sqliteFile(dataDir), { readonly: true });
      await copyOfSource.backup(sqliteFile(strange));
      copyOfSource.close();
      const extra = new SQLite(sqliteFile(strange));
      extra.exec("create table newsletter (id text primary key)");
      extra.close();
      const empty = await mkdtemp(path.join(tmpdir(), "sous-copy-empty-"));
      try {
        await expect(copyDatabase({ from: sqliteSide(strange), to: postgresSide() })).rejects.toThrow(
          /has tables no migration creates \(newsletter\): a copy would leave them behind, so nothing was copied/,
        );
        // The target: an empty site database with one table more.
        const target = await openSqlite(empty);
        await sql`create table newsletter (id text primary key)`.execute(target.db);
        await target.db.destroy();
        await expect(copyDatabase({ from: postgresSide(), to: sqliteSide(empty) })).rejects.toThrow(
          /has tables no migration creates \(newsletter\): copy into a database of this site only/,
        );
        const left = await openSqlite(empty);
        expect((await tablesOf(left.db)).outbox).toStrictEqual([]);
        await sql`drop table newsletter`.execute(left.db);
        await left.db.destroy();
        // Its twin: without the table, the same copy goes through.
        expect(await copyDatabase({ from: postgresSide(), to: sqliteSide(empty) })).toMatchObject({ invitations: 10 });
      } finally {
        await rm(empty, { recursive: true, force: true });
      }
    } finally {
      await rm(strange, { recursive: true, force: true });
    }
  }, 60_000);

  it("refuses a source an older version of the site left, naming its migrations and this code's, copying nothing", async () => {
    const older = await mkdtemp(path.join(tmpdir(), "sous-copy-older-"));
    try {
      const store = await openSqlite(older);
      const back = await new Migrator({ db: store.db, provider: { getMigrations: async () => migrations } }).migrateTo(
        Object.keys(migrations).at(-2)!,
      );
      expect(back.error).toBeUndefined();
      await store.db.destroy();
      const names = Object.keys(migrations);
      const target = await openPostgres();
      const before = await tablesOf(target.db);
      await expect(copyDatabase({ from: sqliteSide(older), to: postgresSide() })).rejects.toThrow(
        `has migrations ${names.slice(0, -1).join(", ")}, this code ${names.join(", ")}: start the server (or npm run db:migrate) on it first`,
      );
      // Nothing reached the target: it holds what it held.
      expect(await tablesOf(target.db)).toStrictEqual(before);
      await target.db.destroy();
    } finally {
      await rm(older, { recursive: true, force: true });
    }
  }, 60_000);

  it("refuses a folder without a SQLite database, and a copy between two of one engine", async () => {
    await expect(
      copyDatabase({ from: sqliteSide(path.join(dataDir, "nothing-here")), to: postgresSide() }),
    ).rejects.toThrow("No SQLite database at");
    await expect(copyDatabase({ from: sqliteSide(dataDir), to: sqliteSide(backDir) })).rejects.toThrow(
      "both sides are the same",
    );
  });

  // Last: it writes to the Postgres the first test filled. The source is read while the server would still write to
  // it (the operator did not stop it): rows written after the counts were taken are caught, and nothing is committed.
  it("refuses to commit a copy whose source changed while it was read, naming the table, and leaves the target empty", async () => {
    const moving = await openPostgres();
    const target = await mkdtemp(path.join(tmpdir(), "sous-copy-moving-"));
    let writing = true;
    // One activity entry after another, as a console in use would write them, until the copy ends.
    const writer = (async () => {
      while (writing) await insertActivity(moving, { ...commandActor, action: "export", subject: "waitlist", rows: 1 });
    })();
    try {
      const copying = copyDatabase({ from: postgresSide(), to: sqliteSide(target) });
      await expect(copying).rejects.toThrow(
        /^Counts differ after the copy \(operator_activity: \d+ → \d+\): nothing was committed$/,
      );
    } finally {
      writing = false;
      await writer;
      await moving.db.destroy();
    }
    const left = await openSqlite(target);
    try {
      expect(Object.values(await tablesOf(left.db)).every((rows) => rows.length === 0)).toBe(true);
    } finally {
      await left.db.destroy();
      await rm(target, { recursive: true, force: true });
    }
  }, 60_000);
});
