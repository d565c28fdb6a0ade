import { Migrator, type Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import { invitedAmong } from "@/server/invitations/invitation-store";
import { claimNext, type Due } from "@/server/outbox/outbox-store";
import { renewConsent, revokeConsent } from "@/server/consent/consent-changes";
import { setupBothEngines } from "@/tests/support/both-engines";
import { migrations } from "./index";

const open = setupBothEngines();
// Each test undoes migrations and makes them again: dozens of DDL statements, which on Postgres, with CI's other
// work beside it, took more than Vitest's 5 s (a clean clone's CI of 15ab818: 0009's test timed out).
const MIGRATING_MS = 30_000;

/** The engine's database taken back to what migration `name` left: the migrator, what it undid, the tables by name. */
async function takenBackTo(engine: "sqlite" | "postgres", name: string) {
  const store = await open(engine);
  const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => migrations } });
  const down = await migrator.migrateTo(name);
  expect(down.error).toBeUndefined();
  return {
    store,
    migrator,
    undone: down.results?.map((result) => result.migrationName) ?? [],
    db: store.db as unknown as Kysely<Record<string, Record<string, unknown>>>,
  };
}

describe.each(["sqlite", "postgres"] as const)("upgrading a %s database with invitations", (engine) => {
  it(
    "to 0009 counts every attempt made before as one that may have reached the carrier: only what the old rule gave back is given back",
    async () => {
      // The database as 0008 left it: every later migration undone, 0009 the last of them.
      const { store, migrator, undone, db } = await takenBackTo(engine, "0008-receiver-answers");
      expect(undone.at(-1)).toBe("0009-invitation-reach");
      const row = (phone: string, state: string, attempts: number) => ({
        id: `msg_${phone}`,
        phone,
        wave: "before",
        position: 0,
        consent_id: "con_x",
        text: "Sous: your early access is open.",
        state,
        attempts,
        rounds: attempts,
        queued_at: 1_000,
        next_attempt_at: 1_000,
      });
      await db.insertInto("invitation_waves").values({ name: "before", created_at: 1_000, size: 4 }).execute();
      await db
        .insertInto("invitations")
        .values([
          row("+12125550001", "cancelled", 0),
          row("+12125550002", "cancelled", 2),
          row("+12125550003", "failed", 3),
          row("+12125550004", "texted", 1),
        ])
        .execute();

      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      const rows = await store.db.selectFrom("invitations").select(["phone", "reached"]).orderBy("phone").execute();
      expect(rows.map((row) => Number(row.reached))).toStrictEqual([0, 2, 3, 1]);
      expect([...(await invitedAmong(store))].sort()).toStrictEqual(["+12125550002", "+12125550003", "+12125550004"]);
    },
    MIGRATING_MS,
  );
});

describe.each(["sqlite", "postgres"] as const)("upgrading a %s database with sign-ups", (engine) => {
  it(
    "to 0011 fills consent_standings from the records already there: each signed-up number once, as consentStandings reads them",
    async () => {
      const { store, migrator, undone, db } = await takenBackTo(engine, "0010-console");
      expect(undone.at(-1)).toBe("0011-console-reads");
      for (const table of ["consents", "consent_revocations", "consent_renewals", "disclosures"])
        await db.deleteFrom(table).execute();
      await db.insertInto("disclosures").values({ version: "v1", text: "I agree.", first_recorded_at: 1 }).execute();
      const consent = (id: string, phone: string, at: number, putsInForce = 1) => ({
        id,
        phone,
        consented_at: at,
        ip: null,
        user_agent: null,
        page_url: null,
        javascript: 0,
        lead_id: `lead_${id}`,
        disclosure_version: "v1",
        puts_in_force: putsInForce,
      });
      await db
        .insertInto("consents")
        .values([
          consent("con_a2", "+12125550001", 2_000),
          consent("con_a1", "+12125550001", 1_000),
          consent("con_b", "+12125550002", 1_500),
          // Signed up again after a STOP: evidence only, until the START.
          consent("con_c1", "+12125550003", 1_000),
          consent("con_c2", "+12125550003", 3_000, 0),
          consent("con_d", "+12125550004", 1_000),
        ])
        .execute();
      const event = (id: string, phone: string) => ({ id, phone, channel: "sms", source: "workflow", message_id: id });
      await db
        .insertInto("consent_revocations")
        .values([
          { ...event("rev_b", "+12125550002"), revoked_at: 1_600 },
          { ...event("rev_c", "+12125550003"), revoked_at: 2_000 },
          // A stranger's STOP and START: no sign-up, no row.
          { ...event("rev_x", "+12125550009"), revoked_at: 900 },
        ])
        .execute();
      await db
        .insertInto("consent_renewals")
        .values([
          { ...event("ren_c", "+12125550003"), renewed_at: 4_000 },
          { ...event("ren_x", "+12125550009"), renewed_at: 950 },
        ])
        .execute();

      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      const rows = await store.db.selectFrom("consent_standings").selectAll().orderBy("phone").execute();
      expect(rows.map((row) => ({ ...row, first_at: Number(row.first_at) }))).toStrictEqual([
        { phone: "+12125550001", first_at: 1_000, first_id: "con_a1", state: "in force" },
        { phone: "+12125550002", first_at: 1_500, first_id: "con_b", state: "revoked" },
        { phone: "+12125550003", first_at: 1_000, first_id: "con_c1", state: "in force" },
        { phone: "+12125550004", first_at: 1_000, first_id: "con_d", state: "in force" },
      ]);
    },
    MIGRATING_MS,
  );
});

describe.each(["sqlite", "postgres"] as const)("upgrading a %s database with consent calls", (engine) => {
  it(
    "to 0013 claims every message id already recorded, each once, so a replay after the upgrade is still a replay",
    async () => {
      const { store, migrator, undone, db } = await takenBackTo(engine, "0012-limit-keys");
      expect(undone.at(-1)).toBe("0013-consent-messages");
      for (const table of ["consent_revocations", "consent_renewals"]) await db.deleteFrom(table).execute();
      const revocation = (id: string, messageId: string | null, at: number) => ({
        id,
        phone: "+12125550100",
        revoked_at: at,
        channel: messageId ? "sms" : "other",
        source: messageId ? "workflow" : "operator",
        message_id: messageId,
      });
      await db
        .insertInto("consent_revocations")
        .values([revocation("rev_1", "SM1", 10), revocation("rev_2", null, 20), revocation("rev_3", "SM3", 30)])
        .execute();
      const renewal = (id: string, messageId: string, at: number) => ({
        id,
        phone: "+12125550100",
        renewed_at: at,
        channel: "sms",
        source: "workflow",
        message_id: messageId,
      });
      // SM3 both ways, as the code before 0013 could let through: kept once, as the revocation it was first.
      await db
        .insertInto("consent_renewals")
        .values([renewal("ren_1", "SM2", 15), renewal("ren_3", "SM3", 35)])
        .execute();

      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      const claimed = await store.db
        .selectFrom("consent_messages")
        .select(["message_id", "kind", "recorded_at"])
        .orderBy("message_id")
        .execute();
      expect(claimed.map((row) => ({ ...row, recorded_at: Number(row.recorded_at) }))).toStrictEqual([
        { message_id: "SM1", kind: "revoke", recorded_at: 10 },
        { message_id: "SM2", kind: "renew", recorded_at: 15 },
        { message_id: "SM3", kind: "revoke", recorded_at: 30 },
      ]);
      // A call replayed after the upgrade records nothing, whichever route it comes to.
      expect(await renewConsent(store, { phone: "+12125550100", messageId: "SM1" })).toMatchObject({ recorded: false });
      expect(
        await revokeConsent(store, { phone: "+12125550100", channel: "sms", source: "workflow", messageId: "SM2" }),
      ).toMatchObject({ recorded: false });
    },
    MIGRATING_MS,
  );
});

describe.each(["sqlite", "postgres"] as const)("upgrading a %s database with STARTs", (engine) => {
  it(
    "to 0014 takes out of force a number whose START followed only the upgrade's tie, and keeps one a web sign-up's record backs",
    async () => {
      const { store, migrator, undone, db } = await takenBackTo(engine, "0013-consent-messages");
      expect(undone.at(-1)).toBe("0014-start-needs-a-record");
      for (const table of ["consent_standings", "consent_renewals", "consent_revocations", "consents"])
        await db.deleteFrom(table).execute();
      for (const version of ["unrecorded", "v1"])
        await db
          .insertInto("disclosures")
          .values({ version, text: version, first_recorded_at: 1 })
          .onConflict((conflict) => conflict.column("version").doNothing())
          .execute();
      const [tied, recorded] = ["+12125550110", "+12125550111"];
      const consent = (id: string, phone: string, version: string, putsInForce: number, at: number) => ({
        id,
        phone,
        consented_at: at,
        ip: null,
        user_agent: null,
        page_url: null,
        javascript: 0,
        lead_id: `lead_${id}`,
        disclosure_version: version,
        puts_in_force: putsInForce,
      });
      await db
        .insertInto("consents")
        .values([consent("con_unrecorded_a", tied!, "unrecorded", 0, 10), consent("con_b", recorded!, "v1", 1, 10)])
        .execute();
      // Each number: its STOP at 20, its START at 30.
      for (const [n, phone] of [tied!, recorded!].entries()) {
        const event = { phone, channel: "sms", source: "workflow" };
        await db
          .insertInto("consent_revocations")
          .values({ ...event, id: `rev_${n}`, revoked_at: 20, message_id: `SMr${n}` })
          .execute();
        await db
          .insertInto("consent_renewals")
          .values({ ...event, id: `ren_${n}`, renewed_at: 30, message_id: `SMs${n}` })
          .execute();
      }
      // As the rule before 0014 stored them: both STARTs counted.
      await db
        .insertInto("consent_standings")
        .values([
          { phone: tied, first_at: 10, first_id: "con_unrecorded_a", state: "in force" },
          { phone: recorded, first_at: 10, first_id: "con_b", state: "in force" },
        ])
        .execute();

      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      const rows = await store.db
        .selectFrom("consent_standings")
        .select(["phone", "first_id", "state"])
        .orderBy("phone")
        .execute();
      expect(rows).toStrictEqual([
        { phone: tied, first_id: "con_unrecorded_a", state: "revoked" },
        { phone: recorded, first_id: "con_b", state: "in force" },
      ]);
    },
    MIGRATING_MS,
  );
});

describe.each(["sqlite", "postgres"] as const)("upgrading a %s database to one outbox", (engine) => {
  it(
    "to 0018 moves every lead and invitation, whatever its state, into the outbox with its delivery state and the body its attempts posted; the passes take up what was due",
    async () => {
      const { store, migrator, undone, db } = await takenBackTo(engine, "0017-session-browser");
      expect(undone).toStrictEqual([
        "0024-passkey-names",
        "0023-welcome-answers",
        "0022-lead-sources",
        "0021-operator-time-zone",
        "0020-invitation-opens",
        "0019-send-budget",
        "0018-one-outbox",
      ]);
      for (const table of ["lead_attempts", "leads", "invitations", "invitation_waves"])
        await db.deleteFrom(table).execute();
      const lead = (id: string, state: string, attempts: number) => ({
        id: `msg_lead-${id}`,
        form: "waitlist",
        dedupe_key: state === "delivered" ? null : `key-${id}`,
        payload: JSON.stringify({ phone: "+12125550100", name: `Chef ${id}` }),
        state,
        attempts,
        rounds: attempts,
        created_at: 1_000,
        next_attempt_at: 2_000,
        delivered_at: state === "delivered" ? 3_000 : null,
        last_failure: state === "delivered" ? null : "status 503",
        claimed_by: state === "pending" ? "left-by-a-dead-server" : null,
        claimed_until: state === "pending" ? 5_000 : null,
      });
      await db
        .insertInto("leads")
        .values([lead("p", "pending", 1), lead("h", "held", 0), lead("d", "dead", 5), lead("v", "delivered", 2)])
        .execute();
      await db
        .insertInto("lead_attempts")
        .values({
          lead_id: "msg_lead-v",
          number: 1,
          at: 2_500,
          status: 200,
          failure: null,
          duration_ms: 9,
          sender: "pass",
        })
        .execute();
      const states = ["queued", "waiting", "texted", "refused", "failed", "cancelled"];
      await db.insertInto("invitation_waves").values({ name: "first", created_at: 10_000, size: 6 }).execute();
      await db
        .insertInto("invitations")
        .values(
          states.map((state, position) => ({
            id: `msg_invitation-${state}`,
            phone: `+1212555020${position}`,
            wave: "first",
            position,
            consent_id: "con_x",
            text: 'Sous: your "early access" is open.',
            state,
            attempts: state === "queued" || state === "waiting" ? 0 : 1,
            rounds: 0,
            reached: state === "cancelled" ? 0 : 1,
            queued_at: 10_000,
            next_attempt_at: state === "waiting" ? 50_000 : 10_000,
            answered_at: state === "texted" || state === "refused" ? 11_000 : null,
            answer: state === "texted" ? "texted" : state === "refused" ? "texted:false" : null,
            carrier_code: state === "refused" ? "21610" : null,
            last_failure: state === "failed" ? "status 503" : null,
          })),
        )
        .execute();

      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      const outbox = await store.db.selectFrom("outbox").selectAll().orderBy("created_at").orderBy("id").execute();
      expect(outbox.map((row) => [row.id, row.receiver, row.state, row.attempts, row.created_at])).toStrictEqual([
        ["msg_lead-d", "waitlist", "dead", 5, 1_000],
        ["msg_lead-h", "waitlist", "held", 0, 1_000],
        ["msg_lead-p", "waitlist", "pending", 1, 1_000],
        ["msg_lead-v", "waitlist", "delivered", 2, 1_000],
        // Queued a millisecond apart, in the wave's order.
        ...states.map((state, position) => [
          `msg_invitation-${state}`,
          "invitations",
          state,
          state === "queued" || state === "waiting" ? 0 : 1,
          10_000 + position,
        ]),
      ]);
      const byId = Object.fromEntries(outbox.map((row) => [row.id, row]));
      expect(byId["msg_lead-p"]).toMatchObject({ payload: lead("p", "pending", 1).payload, claimed_until: 5_000 });
      expect(byId["msg_lead-v"]).toMatchObject({ delivered_at: 3_000, dedupe_key: null });
      // The body every attempt posts, as the sender wrote it.
      expect(byId["msg_invitation-queued"]!.payload).toBe(
        JSON.stringify({ phone: "+12125550200", text: 'Sous: your "early access" is open.' }),
      );
      expect(byId["msg_invitation-waiting"]).toMatchObject({ next_attempt_at: 50_000 });
      expect(byId["msg_invitation-refused"]).toMatchObject({ delivered_at: 11_000, last_failure: null });
      expect(byId["msg_invitation-failed"]).toMatchObject({ last_failure: "status 503" });
      expect(await store.db.selectFrom("outbox_attempts").select(["outbox_id", "status"]).execute()).toStrictEqual([
        { outbox_id: "msg_lead-v", status: 200 },
      ]);
      // What is an invitation's own stays in its table.
      expect(
        await store.db.selectFrom("invitations").selectAll().where("id", "=", "msg_invitation-refused").execute(),
      ).toStrictEqual([
        {
          id: "msg_invitation-refused",
          phone: "+12125550203",
          wave: "first",
          position: 3,
          consent_id: "con_x",
          text: 'Sous: your "early access" is open.',
          reached: 1,
          claimed_at: null,
          answer: "texted:false",
          carrier_code: "21610",
          // An invitation from before links were the site's own: no code, never opened.
          code: null,
          opened_at: null,
        },
      ]);
      // Given back as before: the cancelled one no attempt reached.
      expect([...(await invitedAmong(store))].sort()).toStrictEqual(
        states
          .filter((state) => state !== "cancelled")
          .map((_, i) => `+1212555020${i < 5 ? i : 0}`)
          .sort(),
      );
      // The passes' claim takes up what was due: the lead whose dead sender's claim ran out, then the queued invitation.
      const due: Due = {
        wanted: [{ receivers: ["waitlist", "invitations"], states: ["pending", "queued"], by: 60_000 }],
      };

      expect((await claimNext(store, due, { token: "t", until: Date.now() + 1_000 }))?.id).toBe("msg_lead-p");
      expect((await claimNext(store, due, { token: "t", until: Date.now() + 1_000 }))?.id).toBe(
        "msg_invitation-queued",
      );
      expect(await claimNext(store, due, { token: "t", until: Date.now() + 1_000 })).toBeUndefined();
    },
    MIGRATING_MS,
  );
});

describe.each(["sqlite", "postgres"] as const)("upgrading a %s database to lead sources", (engine) => {
  it(
    "to 0022 gives every lead kept before a source of unknown, and an invitation none",
    async () => {
      const { migrator, undone, db } = await takenBackTo(engine, "0021-operator-time-zone");
      expect(undone).toStrictEqual(["0024-passkey-names", "0023-welcome-answers", "0022-lead-sources"]);
      await db.deleteFrom("outbox").execute();
      const row = (id: string, receiver: string) => ({
        id,
        receiver,
        payload: "{}",
        state: "delivered",
        created_at: 1_000,
        next_attempt_at: 1_000,
      });
      await db
        .insertInto("outbox")
        .values([row("msg_signup", "waitlist"), row("msg_quote", "contact"), row("msg_invitation", "invitations")])
        .execute();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const sources = await db.selectFrom("lead_sources").selectAll().orderBy("lead_id").execute();
      expect(sources.map(({ lead_id, form, source, campaign }) => [lead_id, form, source, campaign])).toStrictEqual([
        ["msg_quote", "contact", "unknown", null],
        ["msg_signup", "waitlist", "unknown", null],
      ]);
    },
    MIGRATING_MS,
  );
});
