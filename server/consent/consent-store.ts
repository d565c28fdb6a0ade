import "server-only";
import { randomUUID } from "node:crypto";
import type { Kysely, Selectable } from "kysely";
import type { Store } from "@/server/db/connect";
import type { ConsentRevocationsTable, ConsentsTable, Database } from "@/server/db/schema";
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
export async function recordConsent(db: Kysely<Database>, evidence: ConsentEvidence, leadId: string, now: number) {
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
    })
    .execute();
  return id;
}

/**
 * The lead a number signed up under, on a form that asks consent: its latest
 * lead still waiting (pending, held or dead) or delivered, found through the
 * consent records, which name each sign-up's lead. Undefined for a number
 * with none (or only leads a revocation stopped).
 */
export function latestLeadOfNumber(db: Kysely<Database>, form: string, phone: string) {
  return db
    .selectFrom("consents")
    .innerJoin("leads", "leads.id", "consents.lead_id")
    .selectAll("leads")
    .where("consents.phone", "=", phone)
    .where("leads.form", "=", form)
    .where("leads.state", "in", ["pending", "held", "dead", "delivered"])
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
        .where("state", "in", ["pending", "held", "dead"])
        .where("payload", "like", pattern)
        .executeTakeFirst();
      leadsStopped += Number(numUpdatedRows);
    }
    return { recorded: true, id: inserted.id, leadsStopped };
  });
}

export type ConsentRecord = Selectable<ConsentsTable> & { disclosure_text: string };
export type RevocationRecord = Selectable<ConsentRevocationsTable>;

const consentsWithText = (db: Kysely<Database>) =>
  db
    .selectFrom("consents")
    .innerJoin("disclosures", "disclosures.version", "consents.disclosure_version")
    .selectAll("consents")
    .select("disclosures.text as disclosure_text");

/** The records and revocations of one number, or since a time (ms), or all of them: oldest first within each. */
export async function consentRecords({ db }: Store, filter: { phone?: string; since?: number } = {}) {
  const { phone, since = 0 } = filter;
  const [consents, revocations] = await Promise.all([
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
  ]);
  return { consents: consents as ConsentRecord[], revocations };
}

/** Where a number's consent stands: given and not revoked since, revoked after its last consent, or no record at all. */
export type ConsentState = "in force" | "revoked" | "none";

// Under SQLite's default limit of bound parameters per statement.
const PHONES_PER_QUERY = 500;

/**
 * The consent state of each number, as `npm run consent -- show` decides it:
 * in force while its latest consent is later than its latest revocation.
 * "none" is a number without a record (a lead older than consent records, or
 * one whose records retention removed).
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
        .groupBy("phone")
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
    for (const row of consents)
      states.set(row.phone, Number(row.at) > (revokedAt.get(row.phone) ?? -1) ? "in force" : "revoked");
    for (const [phone] of revokedAt) if (states.get(phone) === "none") states.set(phone, "revoked");
  }
  return states;
}

/** Retention: records and revocations older than `cutoff` go; the disclosure texts, which name no one, stay. */
export async function forgetOldConsents({ db }: Store, cutoff: number) {
  return db.transaction().execute(async (trx) => {
    const consents = await trx.deleteFrom("consents").where("consented_at", "<", cutoff).executeTakeFirst();
    const revocations = await trx.deleteFrom("consent_revocations").where("revoked_at", "<", cutoff).executeTakeFirst();
    return { consents: Number(consents.numDeletedRows), revocations: Number(revocations.numDeletedRows) };
  });
}
