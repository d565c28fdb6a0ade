import "server-only";
import { randomUUID } from "node:crypto";
import type { Kysely, Selectable } from "kysely";
import type { Store } from "@/server/db/connect";
import type { ConsentRenewalsTable, ConsentRevocationsTable, ConsentsTable, Database } from "@/server/db/schema";
import type { Disclosure } from "./disclosure";

/** What a sign-up's request says of the consent it gives, read by the form's action. */
export type ConsentEvidence = {
  /** E.164, as the schema gave it. */
  phone: string;
  ip: string | null;
  userAgent: string | null;
  pageUrl: string | null;
  javascript: boolean;
  /** The consent text the server renders now. */
  disclosure: Disclosure;
  /** The version the page posted: the text it showed, when that is one the database holds. */
  shownVersion: string | null;
};

/**
 * Keeps one sign-up's consent, inside its lead's transaction: the text in
 * force is stored once, and the record names the version the page showed
 * when the database knows it (a page rendered before a copy change), else the
 * one in force.
 */
export async function recordConsent(
  db: Kysely<Database>,
  evidence: ConsentEvidence,
  leadId: string,
  now: number,
  { putsInForce = true }: { putsInForce?: boolean } = {},
) {
  const { disclosure, shownVersion } = evidence;
  await db
    .insertInto("disclosures")
    .values({ ...disclosure, first_recorded_at: now })
    .onConflict((conflict) => conflict.column("version").doNothing())
    .execute();
  const shown =
    shownVersion && shownVersion !== disclosure.version
      ? await db.selectFrom("disclosures").select("version").where("version", "=", shownVersion).executeTakeFirst()
      : undefined;
  const id = `con_${randomUUID()}`;
  await db
    .insertInto("consents")
    .values({
      id,
      phone: evidence.phone,
      consented_at: now,
      ip: evidence.ip,
      user_agent: evidence.userAgent,
      page_url: evidence.pageUrl,
      javascript: evidence.javascript ? 1 : 0,
      lead_id: leadId,
      disclosure_version: shown?.version ?? disclosure.version,
      puts_in_force: putsInForce ? 1 : 0,
    })
    .execute();
  return id;
}

/** A number's leads on a form, found through the consent records, which name each sign-up's lead. */
const leadsOfNumber = (db: Kysely<Database>, form: string, phone: string) =>
  db
    .selectFrom("consents")
    .innerJoin("leads", "leads.id", "consents.lead_id")
    .selectAll("leads")
    .where("consents.phone", "=", phone)
    .where("leads.form", "=", form);

/**
 * The lead a number signed up under, on a form that asks consent, since its
 * consent was last revoked: its latest lead still waiting (pending, held or
 * dead) or delivered, found through the consent records, which name each
 * sign-up's lead. Undefined for a number with none (or only leads a
 * revocation stopped, or made before it: a number that rejoined is welcomed
 * again).
 */
export async function latestLeadOfNumber(db: Kysely<Database>, form: string, phone: string) {
  const revoked = await db
    .selectFrom("consent_revocations")
    .select((eb) => eb.fn.max("revoked_at").as("at"))
    .where("phone", "=", phone)
    .executeTakeFirst();
  return leadsOfNumber(db, form, phone)
    .where("leads.state", "in", ["pending", "held", "dead", "delivered"])
    .where("leads.created_at", ">", Number(revoked?.at ?? -1))
    .orderBy("leads.created_at", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** The lead of a number's web sign-up that waits for a START from the phone, if one does. */
export function leadAwaitingStart(db: Kysely<Database>, form: string, phone: string) {
  return leadsOfNumber(db, form, phone)
    .where("leads.state", "=", "awaiting_start")
    .orderBy("leads.created_at", "desc")
    .limit(1)
    .executeTakeFirst();
}

export const revocationChannels = ["sms", "email", "other"] as const;
export type RevocationChannel = (typeof revocationChannels)[number];

export type Revocation = {
  phone: string;
  channel: RevocationChannel;
  source: "operator" | "workflow";
  /** The workflow's webhook-id; a second call with it records nothing. */
  messageId?: string;
  at?: number;
};

/** Where a form's leads carry the number they text: the waitlist's payload key "phone". */
export type ConsentForm = { form: string; phoneKey: string };

/**
 * Records that a number's consent ended and stops its open leads, in one
 * transaction: a lead not yet delivered is never sent, loses its values, and
 * leaves its dedupe key free, so a new sign-up from the number is a new lead
 * with a new consent. A claim in flight is let go: its sender's settlement no
 * longer matches, unless the lead was acknowledged meanwhile.
 */
export async function revokeConsent({ db }: Store, revocation: Revocation, forms: readonly ConsentForm[]) {
  const at = revocation.at ?? Date.now();
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("consent_revocations")
      .values({
        id: `rev_${randomUUID()}`,
        phone: revocation.phone,
        revoked_at: at,
        channel: revocation.channel,
        source: revocation.source,
        message_id: revocation.messageId ?? null,
      })
      .onConflict((conflict) => conflict.column("message_id").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!inserted) return { recorded: false, leadsStopped: 0 };

    let leadsStopped = 0;
    for (const { form, phoneKey } of forms) {
      // The payload is the JSON the webhook gets: the key and the number sit side by side, quotes unescaped.
      const pattern = `%${JSON.stringify({ [phoneKey]: revocation.phone }).slice(1, -1)}%`;
      const { numUpdatedRows } = await trx
        .updateTable("leads")
        .set({
          state: "revoked",
          payload: null,
          dedupe_key: null,
          claimed_by: null,
          claimed_until: null,
          last_failure: "consent revoked",
        })
        .where("form", "=", form)
        .where("state", "in", ["pending", "held", "dead", "awaiting_start"])
        .where("payload", "like", pattern)
        .executeTakeFirst();
      leadsStopped += Number(numUpdatedRows);
    }
    return { recorded: true, id: inserted.id, leadsStopped };
  });
}

export type Renewal = {
  phone: string;
  /** The workflow's webhook-id; a second call with it records nothing. */
  messageId: string;
  at?: number;
};

/**
 * Records that the phone texted START after its consent was revoked, and
 * lets go the web sign-ups that waited for it, in one transaction: each lead
 * of the number awaiting a START becomes pending, due now, for the next
 * redelivery pass to send (once: it is claimed like any lead). Only the
 * workflow records a renewal, on a call signed like the revocation's.
 */
export async function renewConsent({ db }: Store, renewal: Renewal) {
  const at = renewal.at ?? Date.now();
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("consent_renewals")
      .values({
        id: `ren_${randomUUID()}`,
        phone: renewal.phone,
        renewed_at: at,
        channel: "sms",
        source: "workflow",
        message_id: renewal.messageId,
      })
      .onConflict((conflict) => conflict.column("message_id").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!inserted) return { recorded: false, leadsReleased: 0 };
    const waiting = trx.selectFrom("consents").select("lead_id").where("phone", "=", renewal.phone);
    const { numUpdatedRows } = await trx
      .updateTable("leads")
      .set({ state: "pending", next_attempt_at: at, claimed_by: null, claimed_until: null })
      .where("state", "=", "awaiting_start")
      .where("id", "in", waiting)
      .executeTakeFirst();
    return { recorded: true, id: inserted.id, leadsReleased: Number(numUpdatedRows) };
  });
}

export type ConsentRecord = Selectable<ConsentsTable> & { disclosure_text: string };
export type RevocationRecord = Selectable<ConsentRevocationsTable>;
export type RenewalRecord = Selectable<ConsentRenewalsTable>;

const consentsWithText = (db: Kysely<Database>) =>
  db
    .selectFrom("consents")
    .innerJoin("disclosures", "disclosures.version", "consents.disclosure_version")
    .selectAll("consents")
    .select("disclosures.text as disclosure_text");

/** The records, revocations and renewals of one number, or since a time (ms), or all of them: oldest first within each. */
export async function consentRecords({ db }: Store, filter: { phone?: string; since?: number } = {}) {
  const { phone, since = 0 } = filter;
  const [consents, revocations, renewals] = await Promise.all([
    consentsWithText(db)
      .where("consents.consented_at", ">=", since)
      .$if(phone !== undefined, (query) => query.where("consents.phone", "=", phone!))
      .orderBy("consented_at")
      .execute(),
    db
      .selectFrom("consent_revocations")
      .selectAll()
      .where("revoked_at", ">=", since)
      .$if(phone !== undefined, (query) => query.where("phone", "=", phone!))
      .orderBy("revoked_at")
      .execute(),
    db
      .selectFrom("consent_renewals")
      .selectAll()
      .where("renewed_at", ">=", since)
      .$if(phone !== undefined, (query) => query.where("phone", "=", phone!))
      .orderBy("renewed_at")
      .execute(),
  ]);
  return { consents: consents as ConsentRecord[], revocations, renewals };
}

/** Where a number's consent stands: given and not revoked since, revoked after its last consent, or no record at all. */
export type ConsentState = "in force" | "revoked" | "none";

// Twice this (the union binds the batch twice) stays under the lowest SQLite limit of bound parameters, 999.
const PHONES_PER_QUERY = 450;

/**
 * The consent state of each number, as `npm run consent -- show` decides it:
 * in force while its latest consent (a web sign-up that puts it in force, or
 * a START from the phone) is later than its latest revocation. A web sign-up
 * after a revocation is evidence only and changes nothing. "none" is a
 * number without a record (a lead older than consent records, or one whose
 * records retention removed).
 */
export async function consentStates({ db }: Store, phones: readonly string[]) {
  const states = new Map<string, ConsentState>();
  const unique = [...new Set(phones)];
  for (let start = 0; start < unique.length; start += PHONES_PER_QUERY) {
    const batch = unique.slice(start, start + PHONES_PER_QUERY);
    const [consents, revocations] = await Promise.all([
      db
        .selectFrom("consents")
        .select(["phone", (eb) => eb.fn.max("consented_at").as("at")])
        .where("phone", "in", batch)
        .where("puts_in_force", "=", 1)
        .groupBy("phone")
        .unionAll(
          db
            .selectFrom("consent_renewals")
            .select(["phone", (eb) => eb.fn.max("renewed_at").as("at")])
            .where("phone", "in", batch)
            .groupBy("phone"),
        )
        .execute(),
      db
        .selectFrom("consent_revocations")
        .select(["phone", (eb) => eb.fn.max("revoked_at").as("at")])
        .where("phone", "in", batch)
        .groupBy("phone")
        .execute(),
    ]);
    const revokedAt = new Map(revocations.map((row) => [row.phone, Number(row.at)]));
    for (const phone of batch) states.set(phone, "none");
    // A number's latest consent, of either kind (a row for each).
    const givenAt = new Map<string, number>();
    for (const row of consents) givenAt.set(row.phone, Math.max(Number(row.at), givenAt.get(row.phone) ?? -1));
    for (const [phone, at] of givenAt) states.set(phone, at > (revokedAt.get(phone) ?? -1) ? "in force" : "revoked");
    for (const [phone] of revokedAt) if (states.get(phone) === "none") states.set(phone, "revoked");
  }
  return states;
}

/** Retention: records, revocations and renewals older than `cutoff` go; the disclosure texts, which name no one, stay. */
export async function forgetOldConsents({ db }: Store, cutoff: number) {
  return db.transaction().execute(async (trx) => {
    const consents = await trx.deleteFrom("consents").where("consented_at", "<", cutoff).executeTakeFirst();
    const revocations = await trx.deleteFrom("consent_revocations").where("revoked_at", "<", cutoff).executeTakeFirst();
    const renewals = await trx.deleteFrom("consent_renewals").where("renewed_at", "<", cutoff).executeTakeFirst();
    return {
      consents: Number(consents.numDeletedRows),
      revocations: Number(revocations.numDeletedRows),
      renewals: Number(renewals.numDeletedRows),
    };
  });
}
