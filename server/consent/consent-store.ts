import "server-only";
import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from "kysely";
import { inTransaction, type Store } from "@/server/db/connect";
import type { ConsentRenewalsTable, ConsentRevocationsTable, ConsentsTable, Database } from "@/server/db/schema";
import type { Disclosure } from "./disclosure";

export const ownedTables = [
  "disclosures",
  "consents",
  "consent_revocations",
  "consent_renewals",
  "consent_standings",
  "consent_messages",
] as const satisfies readonly (keyof Database)[];

export type ConsentEvidence = {
  phone: string;
  ip: string | null;
  userAgent: string | null;
  pageUrl: string | null;
  javascript: boolean;
  disclosure: Disclosure;
  /** The version the page posted, when the database holds that text. */
  shownVersion: string | null;
};

/** Keeps one sign-up's consent, inside its lead's transaction, under the version the page showed when the database knows it (a page rendered before a copy change). */
export async function recordConsent(
  store: Store,
  {
    evidence,
    leadId,
    at: now,
    putsInForce = true,
    id = `con_${randomUUID()}`,
  }: {
    evidence: ConsentEvidence;
    leadId: string;
    at: number;
    putsInForce?: boolean;
    id?: string;
  },
) {
  const { db } = store;
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
    .onConflict((conflict) => conflict.column("id").doNothing())
    .execute();
  await refreshStandings(store, [evidence.phone]);
  return id;
}

/** What a revocation stops and a START releases: found by key, never by the values. */
export async function leadIdsOfNumber({ db }: Store, phone: string) {
  const rows = await db.selectFrom("consents").select("lead_id").where("phone", "=", phone).execute();
  return [...new Set(rows.map((row) => row.lead_id))];
}

/** Each number's leads, in the order it signed up. */
export async function leadIdsOfNumbers({ db }: Store, phones: readonly string[]) {
  const rows = phones.length
    ? await db
        .selectFrom("consents")
        .select(["phone", "lead_id"])
        .where("phone", "in", phones.slice(0, PHONES_PER_QUERY))
        .orderBy("consented_at")
        .orderBy("id")
        .execute()
    : [];
  const ids = new Map<string, string[]>();
  for (const { phone, lead_id } of rows)
    if (!ids.get(phone)?.includes(lead_id)) ids.set(phone, [...(ids.get(phone) ?? []), lead_id]);
  return ids;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- another owner's subquery: any of its tables
type LeadIds = SelectQueryBuilder<any, any, { id: string }>;

/** The numbers whose first or latest sign-up was kept under one of these leads. */
export const phonesBySignUp = ({ db }: Store, leadIds: LeadIds, which: "first" | "latest") =>
  db
    .selectFrom("consents")
    .select("phone")
    .where("lead_id", "in", leadIds)
    .where("consented_at", "=", (eb) =>
      eb
        .selectFrom("consents as other")
        .select((other) =>
          (which === "first" ? other.fn.min("other.consented_at") : other.fn.max("other.consented_at")).as("at"),
        )
        .whereRef("other.phone", "=", "consents.phone"),
    );

/** How the console addresses a chef without the number in a URL. */
export async function phoneOfConsent({ db }: Store, id: string) {
  const row = await db.selectFrom("consents").select("phone").where("id", "=", id).executeTakeFirst();
  return row?.phone;
}

export async function phonesOfLeads({ db }: Store, leadIds: readonly string[]) {
  if (leadIds.length === 0) return [];
  const rows = await db
    .selectFrom("consents")
    .select("phone")
    .distinct()
    .where("lead_id", "in", leadIds.slice(0, PHONES_PER_QUERY))
    .execute();
  return rows.map((row) => row.phone);
}

/** Each number's latest revocation, for those that have one. */
export async function lastRevocations({ db }: Store, phones: readonly string[]) {
  const at = new Map<string, number>();
  // Under SQLite's 999 bound parameters.
  for (let start = 0; start < phones.length; start += 450) {
    const rows = await db
      .selectFrom("consent_revocations")
      .select((eb) => ["phone", eb.fn.max("revoked_at").as("at")])
      .where("phone", "in", phones.slice(start, start + 450))
      .groupBy("phone")
      .execute();
    for (const row of rows) at.set(row.phone, Number(row.at));
  }
  return at;
}

export const revocationChannels = ["sms", "email", "other"] as const;
export type RevocationChannel = (typeof revocationChannels)[number];

export type Revocation = {
  phone: string;
  channel: RevocationChannel;
  source: "operator" | "workflow";
  messageId?: string;
  at?: number;
};

/** One workflow message is one consent event: a STOP's id replayed as a START is a replay too. The id is the key, so two calls at once on any instances leave one row. */
async function reserveMessage(
  db: Kysely<Database>,
  messageId: string | undefined,
  kind: "revoke" | "renew",
  at: number,
) {
  if (messageId === undefined) return true;
  const claimed = await db
    .insertInto("consent_messages")
    .values({ message_id: messageId, kind, recorded_at: at })
    .onConflict((conflict) => conflict.column("message_id").doNothing())
    .returning("message_id")
    .executeTakeFirst();
  return claimed !== undefined;
}

export async function recordRevocation(store: Store, revocation: Revocation) {
  const { db } = store;
  const at = revocation.at ?? Date.now();
  if (!(await reserveMessage(db, revocation.messageId, "revoke", at))) return undefined;
  const inserted = await db
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
  if (inserted) await refreshStandings(store, [revocation.phone]);
  return inserted;
}

export type Renewal = {
  phone: string;
  messageId: string;
  at?: number;
};

export async function recordRenewal(store: Store, renewal: Renewal) {
  const { db } = store;
  const at = renewal.at ?? Date.now();
  if (!(await reserveMessage(db, renewal.messageId, "renew", at))) return undefined;
  const inserted = await db
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
  if (inserted) await refreshStandings(store, [renewal.phone]);
  return inserted;
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

export type ConsentState = "in force" | "revoked" | "none";

export type ConsentStanding = {
  state: ConsentState;
  /** The record it rests on: the latest that put it in force (a sign-up's `con_…` or a START's `ren_…`). */
  recordId?: string;
  firstAt: number;
  signupId?: string;
};

// Under SQLite's lowest limit of bound parameters, 999.
const PHONES_PER_QUERY = 450;

async function standingsOf(db: Kysely<Database>, phones: readonly string[] | undefined) {
  const [consents, renewals, revocations] = await Promise.all([
    db
      .selectFrom("consents")
      .select(["id", "phone", "consented_at as at", "puts_in_force", "disclosure_version"])
      .$if(phones !== undefined, (query) => query.where("phone", "in", phones!))
      .execute(),
    db
      .selectFrom("consent_renewals")
      .select(["id", "phone", "renewed_at as at"])
      .$if(phones !== undefined, (query) => query.where("phone", "in", phones!))
      .execute(),
    db
      .selectFrom("consent_revocations")
      .select(["phone", (eb) => eb.fn.max("revoked_at").as("at")])
      .$if(phones !== undefined, (query) => query.where("phone", "in", phones!))
      .groupBy("phone")
      .execute(),
  ]);
  const revokedAt = new Map(revocations.map((row) => [row.phone, Number(row.at)]));
  const standings = new Map<string, ConsentStanding & { givenAt: number }>();
  const standing = (phone: string, at: number) => {
    let found = standings.get(phone);
    if (!found) standings.set(phone, (found = { state: "none", firstAt: at, givenAt: -1 }));
    found.firstAt = Math.min(found.firstAt, at);
    return found;
  };
  // A START counts only from a number with a web sign-up's record before it: a stranger's START is evidence, never consent.
  const recordedAt = new Map<string, number>();
  const firstSignup = new Map<string, { id: string; at: number }>();
  for (const row of consents) {
    const at = Number(row.at);
    const first = firstSignup.get(row.phone);
    if (!first || at < first.at || (at === first.at && row.id < first.id))
      firstSignup.set(row.phone, { id: row.id, at });
    if (row.disclosure_version !== unrecordedDisclosure.version && at < (recordedAt.get(row.phone) ?? Infinity))
      recordedAt.set(row.phone, at);
  }
  const signedRenewals = renewals.filter((row) => (recordedAt.get(row.phone) ?? Infinity) <= Number(row.at));
  const given = [...consents.filter((row) => row.puts_in_force === 1), ...signedRenewals];
  for (const row of consents) standing(row.phone, Number(row.at));
  for (const row of given) {
    const found = standing(row.phone, Number(row.at));
    if (Number(row.at) > found.givenAt) Object.assign(found, { givenAt: Number(row.at), recordId: row.id });
  }
  for (const [phone, at] of revokedAt) standing(phone, at);
  for (const [phone, found] of standings) {
    const revoked = revokedAt.get(phone) ?? -1;
    found.state = found.givenAt > revoked ? "in force" : revoked >= 0 ? "revoked" : "none";
    if (found.state !== "in force") found.recordId = undefined;
  }
  return new Map(
    [...standings].map(([phone, found]): [string, ConsentStanding] => [
      phone,
      {
        state: found.state,
        firstAt: found.firstAt,
        ...(found.recordId ? { recordId: found.recordId } : {}),
        ...(firstSignup.has(phone) ? { signupId: firstSignup.get(phone)!.id } : {}),
      },
    ]),
  );
}

/** In force while the latest consent (a sign-up that puts it in force, or a START) is later than the latest revocation. A number without records is missing from the map. */
export async function consentStandings({ db }: Store, phones?: readonly string[]) {
  if (phones === undefined) return standingsOf(db, undefined);
  const standings = new Map<string, ConsentStanding>();
  const unique = [...new Set(phones)];
  for (let start = 0; start < unique.length; start += PHONES_PER_QUERY)
    for (const [phone, standing] of await standingsOf(db, unique.slice(start, start + PHONES_PER_QUERY)))
      standings.set(phone, standing);
  return standings;
}

/** consentStandings's rule in SQL, for the numbers that signed up on the web: signed-up.test.ts holds the two to each other on both engines. */
function standingsSql(phones: readonly string[] | undefined) {
  const named = phones === undefined ? sql`1 = 1` : sql`phone in (${sql.join(phones)})`;
  return sql`
    with signup as (
      select phone, min(consented_at) as first_at,
        max(case when puts_in_force = 1 then consented_at end) as given_at,
        min(case when disclosure_version <> ${unrecordedDisclosure.version} then consented_at end) as recorded_at
      from consents where ${named} group by phone
    ),
    renewed as (
      select r.phone, max(r.renewed_at) as at
      from consent_renewals r join signup s on s.phone = r.phone and r.renewed_at >= s.recorded_at
      group by r.phone
    ),
    revoked as (
      select phone, max(revoked_at) as at from consent_revocations where ${named} group by phone
    )
    select s.phone, s.first_at,
      (select c.id from consents c where c.phone = s.phone order by c.consented_at, c.id limit 1),
      case
        when coalesce(s.given_at, -1) > coalesce(v.at, -1) or coalesce(n.at, -1) > coalesce(v.at, -1) then 'in force'
        when v.at is not null then 'revoked'
        else 'none'
      end
    from signup s left join renewed n on n.phone = s.phone left join revoked v on v.phone = s.phone
    where 1 = 1`;
}

// Each number is named twice in standingsSql: under SQLite's 999 bound parameters.
const STANDINGS_PER_QUERY = 400;
// Postgres: one writer at a time works a standing out, after the records before it committed.
const STANDINGS_LOCK = 580_011;

/** Called by every function here that writes or removes a record. On Postgres the writers take turns, so the last to commit saw every record before it. */
export async function refreshStandings({ db, engine }: Store, phones: readonly string[]) {
  const unique = [...new Set(phones)];
  if (!unique.length) return;
  const work = async (trx: Kysely<Database>) => {
    if (engine === "postgres") await sql`select pg_advisory_xact_lock(${STANDINGS_LOCK})`.execute(trx);
    for (let start = 0; start < unique.length; start += STANDINGS_PER_QUERY) {
      const some = unique.slice(start, start + STANDINGS_PER_QUERY);
      await sql`
        insert into consent_standings (phone, first_at, first_id, state) ${standingsSql(some)}
        on conflict (phone) do update set
          first_at = excluded.first_at, first_id = excluded.first_id, state = excluded.state`.execute(trx);
      await trx
        .deleteFrom("consent_standings")
        .where("phone", "in", some)
        .where(({ exists, not, selectFrom }) =>
          not(exists(selectFrom("consents").select("id").whereRef("consents.phone", "=", "consent_standings.phone"))),
        )
        .execute();
    }
  };
  await (db.isTransaction ? work(db) : db.transaction().execute(work));
}

/** For rows written around the functions here (a bench's fill). */
export async function rebuildStandings({ db }: Store) {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom("consent_standings").execute();
    await sql`insert into consent_standings (phone, first_at, first_id, state) ${standingsSql(undefined)}`.execute(trx);
  });
}

export type SignedUpFilter = {
  state?: ConsentState;
  phone?: string;
  digits?: string;
  phones?: readonly string[];
  named?: { phones: SelectQueryBuilder<Database, keyof Database, { phone: string }>; outside?: boolean }[];
};

export async function signedUpPage(
  { db }: Store,
  { filter, offset, limit }: { filter: SignedUpFilter; offset: number; limit: number },
) {
  const among = filter.phones?.slice(0, PHONES_PER_QUERY);
  const chosen = db
    .selectFrom("consent_standings")
    .$if(filter.state !== undefined, (query) => query.where("state", "=", filter.state!))
    .$if(filter.phone !== undefined, (query) => query.where("phone", "=", filter.phone!))
    .$if(filter.digits !== undefined, (query) => query.where("phone", "like", `%${filter.digits!.replace(/\D/g, "")}%`))
    .$if(among !== undefined, (query) =>
      among!.length ? query.where("phone", "in", among!) : query.where(sql<boolean>`1 = 0`),
    )
    .$if(Boolean(filter.named?.length), (query) =>
      query.where((eb) =>
        eb.and(filter.named!.map(({ phones, outside }) => eb("phone", outside ? "not in" : "in", phones))),
      ),
    );
  const [rows, counted] = await Promise.all([
    chosen
      .select(["phone", "first_at", "first_id", "state"])
      .orderBy("first_at", "desc")
      .orderBy("phone")
      .limit(limit)
      .offset(offset)
      .execute(),
    chosen.select((eb) => eb.fn.countAll<number | string>().as("total")).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((row) => ({
      phone: row.phone,
      key: row.first_id,
      signedUpAt: Number(row.first_at),
      state: row.state,
    })),
    total: Number(counted.total),
  };
}

/** Counts only: no number leaves it. */
/** Numbers by where their consent stands, and first sign-ups since `since` by bucket of `bucketMs`. */
export async function signedUpCounts({ db }: Store, { since, bucketMs }: { since: number; bucketMs: number }) {
  const [byState, byBucket] = await Promise.all([
    db
      .selectFrom("consent_standings")
      .select((eb) => ["state", eb.fn.countAll<number | string>().as("count")])
      .groupBy("state")
      .execute(),
    db
      .selectFrom("consent_standings")
      .select((eb) => [
        sql<number | string>`cast(first_at / ${bucketMs} as integer)`.as("bucket"),
        eb.fn.countAll<number | string>().as("count"),
      ])
      .where("first_at", ">=", since)
      .groupBy(sql`1`)
      .execute(),
  ]);
  const states: Record<ConsentState, number> = { "in force": 0, revoked: 0, none: 0 };
  for (const row of byState) states[row.state] += Number(row.count);
  return {
    states,
    times: byBucket.map((row) => ({ at: Math.floor(Number(row.bucket)) * bucketMs, count: Number(row.count) })),
  };
}

export async function consentStates(store: Store, phones: readonly string[]) {
  const standings = await consentStandings(store, phones);
  return new Map(phones.map((phone) => [phone, standings.get(phone)?.state ?? ("none" as ConsentState)]));
}

/** Retention: the disclosure texts, which name no one, stay. */
export async function forgetOldConsents(store: Store, cutoff: number) {
  return inTransaction(store, async (tx) => {
    const trx = tx.db;
    const touched = await trx
      .selectFrom("consents")
      .select("phone")
      .where("consented_at", "<", cutoff)
      .union(trx.selectFrom("consent_revocations").select("phone").where("revoked_at", "<", cutoff))
      .union(trx.selectFrom("consent_renewals").select("phone").where("renewed_at", "<", cutoff))
      .execute();
    const consents = await trx.deleteFrom("consents").where("consented_at", "<", cutoff).executeTakeFirst();
    const revocations = await trx.deleteFrom("consent_revocations").where("revoked_at", "<", cutoff).executeTakeFirst();
    const renewals = await trx.deleteFrom("consent_renewals").where("renewed_at", "<", cutoff).executeTakeFirst();
    await refreshStandings(
      tx,
      touched.map((row) => row.phone),
    );
    return {
      consents: Number(consents.numDeletedRows),
      revocations: Number(revocations.numDeletedRows),
      renewals: Number(renewals.numDeletedRows),
    };
  });
}

/** A dropped sign-up's consent records: its number stays on the list only by another sign-up's. */
export async function forgetConsentsOf(store: Store, leadIds: readonly string[]) {
  for (let start = 0; start < leadIds.length; start += PHONES_PER_QUERY) {
    const some = leadIds.slice(start, start + PHONES_PER_QUERY);
    const gone = await store.db.deleteFrom("consents").where("lead_id", "in", some).returning("phone").execute();
    await refreshStandings(
      store,
      gone.map((row) => row.phone),
    );
  }
}

/** What a row tying a lead kept before consent records to its number says: evidence of nothing. */
export const unrecordedDisclosure: Disclosure = {
  version: "unrecorded",
  text: "No consent record was kept for this sign-up: it was made before the site kept them. This row only ties the number to its lead, so a STOP finds it.",
};
