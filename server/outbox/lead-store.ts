import "server-only";
import { sql, type Insertable, type Updateable } from "kysely";
import { unclaimed, type Claim } from "@/server/outbox/claims";
import type { Store } from "@/server/db/connect";
import type { Database, LeadAttemptsTable, LeadState, LeadsTable } from "@/server/db/schema";
import type { LeadRow } from "./lead";

export const ownedTables = ["leads", "lead_attempts"] as const satisfies readonly (keyof Database)[];

const openStates: LeadState[] = ["pending", "held", "dead"];

/** Undefined when an open lead with the same values is kept already. */
function insertLead({ db }: Store, lead: Insertable<LeadsTable>): Promise<LeadRow | undefined> {
  return db
    .insertInto("leads")
    .values(lead)
    .onConflict((conflict) => conflict.column("dedupe_key").doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function insertClaimed(store: Store, lead: Insertable<LeadsTable>, claim: Claim) {
  return insertLead(store, { ...lead, claimed_by: claim.token, claimed_until: claim.until });
}

/** A sign-up of a revoked number: unclaimed, until the phone texts START. */
export function insertAwaitingStart(store: Store, lead: Insertable<LeadsTable>) {
  return insertLead(store, { ...lead, state: "awaiting_start", claimed_by: null, claimed_until: null });
}

export function openLeadByKey({ db }: Store, key: string) {
  return db.selectFrom("leads").selectAll().where("dedupe_key", "=", key).executeTakeFirst();
}

export function leadById({ db }: Store, id: string) {
  return db.selectFrom("leads").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Undefined while someone else holds it, or when it is not open. */
export function claimById({ db }: Store, id: string, claim: Claim) {
  return db
    .updateTable("leads")
    .set({ claimed_by: claim.token, claimed_until: claim.until })
    .where("id", "=", id)
    .where("state", "in", openStates)
    .where(unclaimed(Date.now()))
    .returningAll()
    .executeTakeFirst();
}

export type LeadSelection = {
  pendingDueBy?: number;
  heldForms?: readonly string[];
  dead?: boolean;
  skipForms?: readonly string[];
  form?: string;
  /** A pass sends each lead once at most. */
  skipIds?: readonly string[];
};

/** One statement: SQLite lets one writer at a time run it, Postgres skips rows another transaction is claiming. */
export function claimNextLead(store: Store, claim: Claim, selection: LeadSelection) {
  const { db, engine } = store;
  const now = Date.now();
  const due = db
    .selectFrom("leads")
    .select("id")
    .where((eb) => {
      const wanted = [];
      if (selection.pendingDueBy !== undefined) {
        wanted.push(eb.and([eb("state", "=", "pending"), eb("next_attempt_at", "<=", selection.pendingDueBy)]));
      }
      if (selection.heldForms?.length)
        wanted.push(eb.and([eb("state", "=", "held"), eb("form", "in", selection.heldForms)]));
      if (selection.dead) wanted.push(eb("state", "=", "dead"));
      return eb.and([
        eb.or(wanted),
        unclaimed(now)(eb),
        ...(selection.skipForms?.length ? [eb("form", "not in", selection.skipForms)] : []),
        ...(selection.form === undefined ? [] : [eb("form", "=", selection.form)]),
        ...(selection.skipIds?.length ? [eb("id", "not in", selection.skipIds)] : []),
      ]);
    })
    .orderBy("next_attempt_at")
    .limit(1)
    .$if(engine === "postgres", (query) => query.forUpdate().skipLocked());
  return db
    .updateTable("leads")
    .set({ claimed_by: claim.token, claimed_until: claim.until })
    .where("id", "in", due)
    .where(unclaimed(now))
    .returningAll()
    .executeTakeFirst();
}

function latestAmong(
  { db }: Store,
  { ids, form, states, after = -1 }: { ids: readonly string[]; form: string; states: LeadState[]; after?: number },
) {
  if (!ids.length) return Promise.resolve(undefined);
  return db
    .selectFrom("leads")
    .selectAll()
    .where("id", "in", ids)
    .where("form", "=", form)
    .where("state", "in", states)
    .where("created_at", ">", after)
    .orderBy("created_at", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** The lead the number was welcomed under, if any. */
export const latestLeadAmong = (store: Store, form: string, ids: readonly string[], after: number) =>
  latestAmong(store, { ids, form, states: [...openStates, "delivered"], after });

export const awaitingStartAmong = (store: Store, form: string, ids: readonly string[]) =>
  latestAmong(store, { ids, form, states: ["awaiting_start"] });

/**
 * A revocation: undelivered leads are never sent. Each loses its values and its dedupe key, so a new sign-up is a new
 * lead with a new consent; a claim in flight is let go.
 */
export async function stopLeads({ db }: Store, ids: readonly string[]) {
  if (!ids.length) return 0;
  const { numUpdatedRows } = await db
    .updateTable("leads")
    .set({
      state: "revoked",
      payload: null,
      dedupe_key: null,
      claimed_by: null,
      claimed_until: null,
      last_failure: "consent revoked",
    })
    .where("id", "in", ids)
    .where("state", "in", [...openStates, "awaiting_start"])
    .executeTakeFirst();
  return Number(numUpdatedRows);
}

/** A START: due `at`, for the next pass to send. */
export async function releaseAwaitingStart({ db }: Store, ids: readonly string[], at: number) {
  if (!ids.length) return 0;
  const { numUpdatedRows } = await db
    .updateTable("leads")
    .set({ state: "pending", next_attempt_at: at, claimed_by: null, claimed_until: null })
    .where("id", "in", ids)
    .where("state", "=", "awaiting_start")
    .executeTakeFirst();
  return Number(numUpdatedRows);
}

/** A bench's fill: the row as given, schedule included. */
export async function importLead({ db }: Store, lead: Insertable<LeadsTable>) {
  const rows = await db
    .insertInto("leads")
    .values(lead)
    .onConflict((conflict) => conflict.doNothing())
    .returning("id")
    .execute();
  return rows.length > 0;
}

export async function lastDeliveredAt({ db }: Store, form: string) {
  const row = await db
    .selectFrom("leads")
    .select((eb) => eb.fn.max("delivered_at").as("at"))
    .where("form", "=", form)
    .where("state", "=", "delivered")
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}

export type AttemptRecord = Omit<LeadAttemptsTable, "lead_id" | "number">;

/** Only the claim's holder may change the lead, except to record a delivery: an acknowledged lead is delivered, whoever held it. */
export async function settle(
  { db }: Store,
  {
    lead,
    claim,
    change,
    attempts,
  }: {
    lead: { id: string; attempts: number };
    claim: Claim;
    change: Updateable<LeadsTable>;
    attempts: AttemptRecord[];
  },
) {
  await db.transaction().execute(async (trx) => {
    if (attempts.length) {
      await trx
        .insertInto("lead_attempts")
        .values(attempts.map((attempt, index) => ({ ...attempt, lead_id: lead.id, number: lead.attempts + index + 1 })))
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    }
    await trx
      .updateTable("leads")
      .set((eb) => ({
        ...change,
        attempts: eb("attempts", "+", attempts.length),
        claimed_by: null,
        claimed_until: null,
      }))
      .where("id", "=", lead.id)
      .where((eb) =>
        change.state === "delivered" ? eb("state", "<>", "delivered") : eb("claimed_by", "=", claim.token),
      )
      .execute();
  });
}

/** Its receiver answered again: what waits for a later round goes with the next pass. */
export async function releaseWaiting({ db }: Store, form: string, now: number) {
  await db
    .updateTable("leads")
    .set({ next_attempt_at: now })
    .where("form", "=", form)
    .where("state", "=", "pending")
    .where("next_attempt_at", ">", now)
    .execute();
}

/** One grouped query over the open leads (the state index), for health and the alerts. */
export async function openLeadCounts({ db }: Store, form?: string) {
  const rows = await db
    .selectFrom("leads")
    .select((eb) => ["form", "state", eb.fn.countAll<number>().as("count"), eb.fn.min("created_at").as("oldest")])
    .where("state", "in", openStates)
    .$if(form !== undefined, (query) => query.where("form", "=", form!))
    .groupBy(["form", "state"])
    .execute();
  return rows.map((row) => ({
    form: row.form,
    state: row.state,
    count: Number(row.count),
    oldest: Number(row.oldest),
  }));
}

export type LeadFilter = { states?: readonly LeadState[]; form?: string; withValues?: boolean };

function filtered({ db }: Store, filter: LeadFilter) {
  return db
    .selectFrom("leads")
    .$if(Boolean(filter.states?.length), (query) => query.where("state", "in", filter.states!))
    .$if(Boolean(filter.form), (query) => query.where("form", "=", filter.form!))
    .$if(Boolean(filter.withValues), (query) => query.where("payload", "is not", null));
}

export function listLeads(
  store: Store,
  filter: LeadFilter = {},
  { limit, newestFirst = false }: { limit?: number; newestFirst?: boolean } = {},
) {
  return filtered(store, filter)
    .selectAll()
    .orderBy("created_at", newestFirst ? "desc" : "asc")
    .orderBy("id", newestFirst ? "desc" : "asc")
    .$if(limit !== undefined, (query) => query.limit(limit!))
    .execute();
}

export async function countLeads(store: Store, filter: LeadFilter = {}) {
  const row = await filtered(store, filter)
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function attemptsOf({ db }: Store, id: string) {
  return db.selectFrom("lead_attempts").selectAll().where("lead_id", "=", id).orderBy("number").execute();
}

/**
 * The payload's JSON is first matched as text, which pg_trgm's index serves (decision 0017); then the name alone, so
 * no other field of the JSON can be probed. `%`, `_` and `\\` match themselves.
 */
export async function leadIdsNamed(
  { db, engine }: Store,
  { form, text, limit }: { form: string; text: string; limit: number },
) {
  const like = (value: string) => `%${value.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
  const lowered = text.toLowerCase();
  const name =
    engine === "postgres"
      ? sql<string>`lower(payload::json ->> 'name')`
      : sql<string>`lower(json_extract(payload, '$.name'))`;
  const rows = await db
    .selectFrom("leads")
    .select("id")
    .where("form", "=", form)
    .where((eb) =>
      eb(eb.fn("lower", ["payload"]), "like", sql<string>`${like(JSON.stringify(lowered).slice(1, -1))} escape '\\'`),
    )
    .where(sql<boolean>`${name} like ${like(lowered)} escape '\\'`)
    .orderBy("created_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** A delivered lead is the record of what was sent: only open ones are dropped. */
export async function dropLead({ db }: Store, id: string) {
  const { numDeletedRows } = await db
    .deleteFrom("leads")
    .where("id", "=", id)
    .where("state", "in", openStates)
    .executeTakeFirst();
  return numDeletedRows > 0n;
}

/** Retention: the row and its delivery log stay. */
export async function forgetDeliveredPayloads({ db }: Store, cutoff: number) {
  const { numUpdatedRows } = await db
    .updateTable("leads")
    .set({ payload: null })
    .where("state", "=", "delivered")
    .where("delivered_at", "<", cutoff)
    .where("payload", "is not", null)
    .executeTakeFirst();
  return Number(numUpdatedRows);
}

/** Retention: a sign-up that waited too long for a START is let go unsent, like a lead a revocation stopped. */
export async function forgetUnrenewedSignups({ db }: Store, cutoff: number) {
  const { numUpdatedRows } = await db
    .updateTable("leads")
    .set({ state: "revoked", payload: null, dedupe_key: null, last_failure: "no START within retention" })
    .where("state", "=", "awaiting_start")
    .where("created_at", "<", cutoff)
    .executeTakeFirst();
  return Number(numUpdatedRows);
}
