import "server-only";
import { randomUUID } from "node:crypto";
import {
  sql,
  type ExpressionBuilder,
  type SelectQueryBuilder,
  type Insertable,
  type Selectable,
  type Updateable,
} from "kysely";
import { formNames } from "@/lib/forms";
import type { Store } from "@/server/db/connect";
import type { Database, LeadState, OutboxAttemptsTable, OutboxTable } from "@/server/db/schema";

export const ownedTables = ["outbox", "outbox_attempts", "outbox_pace"] as const satisfies readonly (keyof Database)[];

/**
 * Who holds a row of the outbox, and until when: a sender claims it before it posts it, so no other pass, instance or
 * visitor sends it too; a claim left by a process that died runs out and is taken over.
 */
export type Claim = { token: string; until: number };

// A claim outlives its sender's longest wait by this much.
export const CLAIM_MARGIN_MS = 5_000;

/** A claim of `ms` from `now`. */
export const newClaim = (ms: number, now = Date.now()): Claim => ({ token: randomUUID(), until: now + ms });

/** A fresh webhook-id: one per delivery, kept by every attempt and every redelivery, so receivers drop duplicates. */
export const newWebhookId = () => `msg_${randomUUID()}`;

export type OutboxRow = Selectable<OutboxTable>;
export type OutboxState = OutboxTable["state"];
export type AttemptRecord = Omit<OutboxAttemptsTable, "outbox_id" | "number">;

/** What waits to be sent, or was given up on, in every kind's words: counted for health and the alerts. */
const openStates = {
  pending: "pending",
  queued: "pending",
  waiting: "pending",
  held: "held",
  dead: "dead",
  failed: "dead",
  awaiting_release: "decision",
} as const;
export type Open = (typeof openStates)[keyof typeof openStates];
/** A lead not yet delivered that a sender may still send. */
export const openLeadStates: readonly LeadState[] = ["pending", "held", "dead", "awaiting_release"];

/** Nobody holds the row: never claimed, or its claim ran out (the sender that held it died). */
const unclaimed = (now: number) => (eb: ExpressionBuilder<Database, "outbox">) =>
  eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<=", now)]);

/** Rows made together (a wave's invitations): 13 columns a row, 60 rows a statement stays under SQLite's 999 parameters. */
export async function insertRows({ db }: Store, rows: Insertable<OutboxTable>[]) {
  for (let start = 0; start < rows.length; start += 60)
    await db
      .insertInto("outbox")
      .values(rows.slice(start, start + 60))
      .execute();
}

/** Rows of these receivers in these states, due by `by` (or any time). */
export type Wanted = { receivers: readonly string[]; states: readonly OutboxState[]; by?: number };
/** `attempted`: one a failure put back (a probe's); `ids`: those rows alone. */
export type Due = {
  wanted: readonly Wanted[];
  attempted?: boolean;
  ids?: readonly string[];
  skipIds?: readonly string[];
};

function due({ db, engine }: Store, due: Due) {
  const wanted = due.wanted.filter(({ receivers, states }) => receivers.length && states.length);
  if (!wanted.length) return undefined;
  const now = Date.now();
  return db
    .selectFrom("outbox")
    .where((eb) =>
      eb.and([
        eb.or(
          wanted.map(({ receivers, states, by }) =>
            eb.and([
              eb("receiver", "in", receivers),
              eb("state", "in", states),
              ...(by === undefined ? [] : [eb("next_attempt_at", "<=", by)]),
            ]),
          ),
        ),
        unclaimed(now)(eb),
        ...(due.attempted ? [eb("attempts", ">", 0)] : []),
        ...(due.ids === undefined ? [] : [eb("id", "in", due.ids.length ? due.ids : [""])]),
        ...(due.skipIds?.length ? [eb("id", "not in", due.skipIds)] : []),
      ]),
    )
    .orderBy("next_attempt_at")
    .orderBy("created_at")
    .orderBy("id")
    .limit(1)
    .$if(engine === "postgres", (query) => query.forUpdate().skipLocked());
}

/** The row due first, locked until the transaction ends on Postgres (others skip it); SQLite lets one writer at a time. */
export const nextDue = (store: Store, wanted: Due) => due(store, wanted)?.selectAll().executeTakeFirst();

/**
 * One statement, so no transaction holds SQLite's write lock across an await: the row due first, claimed. `=`, not
 * `in`: Postgres may run an `in` subquery again for each row it updates, and so claim more than one.
 */
export function claimNext(store: Store, wanted: Due, claim: Claim) {
  const first = due(store, wanted)?.select("id");
  if (!first) return undefined;
  return store.db
    .updateTable("outbox")
    .set({ claimed_by: claim.token, claimed_until: claim.until })
    .where("id", "=", first)
    .where(unclaimed(Date.now()))
    .returningAll()
    .executeTakeFirst();
}

export async function claimRow({ db }: Store, id: string, claim: Claim) {
  await db
    .updateTable("outbox")
    .set({ claimed_by: claim.token, claimed_until: claim.until })
    .where("id", "=", id)
    .execute();
}

/** Settled without a send (a check before it failed): nobody holds it. */
export async function setUnclaimed({ db }: Store, id: string, change: Updateable<OutboxTable>) {
  await db.updateTable("outbox").set(change).where("id", "=", id).execute();
}

/**
 * Only the claim's holder may change the row, but for an answer: acknowledged, it is delivered whoever held it. Every
 * attempt goes into the delivery log.
 */
export async function settle(
  { db }: Store,
  {
    row,
    claim,
    change,
    answered,
    attempts,
  }: {
    row: Pick<OutboxRow, "id" | "attempts">;
    claim: Claim;
    change: Updateable<OutboxTable> & { state: OutboxState };
    /** The states an answer ends in: one of them is kept, whoever settles after. */
    answered: readonly OutboxState[];
    attempts: AttemptRecord[];
  },
) {
  if (attempts.length)
    await db
      .insertInto("outbox_attempts")
      .values(attempts.map((attempt, index) => ({ ...attempt, outbox_id: row.id, number: row.attempts + index + 1 })))
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  await db
    .updateTable("outbox")
    .set((eb) => ({ ...change, attempts: eb("attempts", "+", attempts.length), claimed_by: null, claimed_until: null }))
    .where("id", "=", row.id)
    .where((eb) =>
      answered.includes(change.state) ? eb("state", "not in", answered) : eb("claimed_by", "=", claim.token),
    )
    .execute();
}

/** Its receiver answered again: what waits for a later round goes with the next pass (not what waits for its hours). */
export async function release({ db }: Store, receiver: string, now: number) {
  await db
    .updateTable("outbox")
    .set({ next_attempt_at: now })
    .where("receiver", "=", receiver)
    .where("state", "in", ["pending", "queued"])
    .where("next_attempt_at", ">", now)
    .execute();
}

/**
 * One grouped query over what waits (the state index), for health and the alerts: by receiver, pending (`budget`: of
 * them, those waiting for a slot of the texts budget), held, dead, and waiting for an owner's decision.
 */
export async function openCounts({ db }: Store, receiver?: string) {
  const rows = await db
    .selectFrom("outbox")
    .select((eb) => [
      "receiver",
      "state",
      eb.fn.countAll<number>().as("count"),
      eb.fn.min("created_at").as("oldest"),
      eb.fn.sum<number>(eb.case().when("last_failure", "=", WAITS_FOR_BUDGET).then(1).else(0).end()).as("budgeted"),
    ])
    .where("state", "in", Object.keys(openStates) as OutboxState[])
    // An invitation that failed before any attempt (no sending hours in its zones) was never its receiver's failure.
    .where((eb) => eb.not(eb.and([eb("state", "=", "failed"), eb("attempts", "=", 0)])))
    .$if(receiver !== undefined, (query) => query.where("receiver", "=", receiver!))
    .groupBy(["receiver", "state"])
    .execute();
  const counts = new Map<string, Record<Open | "budget", { count: number; oldest: number | undefined }>>();
  for (const row of rows) {
    const of = counts.get(row.receiver) ?? {
      pending: { count: 0, oldest: undefined },
      held: { count: 0, oldest: undefined },
      dead: { count: 0, oldest: undefined },
      decision: { count: 0, oldest: undefined },
      budget: { count: 0, oldest: undefined },
    };
    const open = of[openStates[row.state as keyof typeof openStates]];
    open.count += Number(row.count);
    open.oldest = Math.min(open.oldest ?? Infinity, Number(row.oldest));
    if (row.state === "pending") of.budget.count += Number(row.budgeted);
    counts.set(row.receiver, of);
  }
  return counts;
}

export type Budget = { perMinute: number; perDay: number };

/** A pending row's last_failure while it waits for a slot of its receiver's budget. */
export const WAITS_FOR_BUDGET = "budget";

const windows = { minute: 60_000, day: 86_400_000 } as const;

/**
 * One send of the receiver's budget, counted in windows every instance shares (one compare-and-set statement): the
 * day's count once taken, else when the window that is full ends, and whether the day's is.
 */
export async function reservePace({ db }: Store, receiver: string, now: number, budget: Budget) {
  await db
    .insertInto("outbox_pace")
    .values({ receiver, minute_start: now, minute_count: 0, day_start: now, day_count: 0 })
    .onConflict((conflict) => conflict.column("receiver").doNothing())
    .execute();
  const taken = await db
    .updateTable("outbox_pace")
    .set((eb) => {
      const counted = (window: keyof typeof windows) => {
        const over = eb(`${window}_start`, "<=", now - windows[window]);
        return {
          [`${window}_start`]: eb
            .case()
            .when(over)
            .then(now)
            .else(eb.ref(`${window}_start`))
            .end(),
          [`${window}_count`]: eb
            .case()
            .when(over)
            .then(1)
            .else(eb(`${window}_count`, "+", 1))
            .end(),
        };
      };
      return { ...counted("minute"), ...counted("day") };
    })
    .where("receiver", "=", receiver)
    .where((eb) =>
      eb.and(
        (["minute", "day"] as const).map((window) =>
          eb.or([
            eb(`${window}_start`, "<=", now - windows[window]),
            eb(`${window}_count`, "<", window === "minute" ? budget.perMinute : budget.perDay),
          ]),
        ),
      ),
    )
    .returning("day_count")
    .executeTakeFirst();
  if (taken) return { taken: Number(taken.day_count) };
  const row = await db.selectFrom("outbox_pace").selectAll().where("receiver", "=", receiver).executeTakeFirstOrThrow();
  const full = (window: keyof typeof windows, limit: number) =>
    Number(row[`${window}_count`]) >= limit ? Number(row[`${window}_start`]) + windows[window] : 0;
  const day = full("day", budget.perDay);
  return { opensAt: Math.max(full("minute", budget.perMinute), day), dayFull: day > 0 };
}

/** Ids of a receiver's rows in `states`: a subquery another table's owner filters by, so it need not name this one. */
export const idsIn = ({ db }: Store, receiver: string, states: readonly OutboxState[], { attempted = false } = {}) =>
  db
    .selectFrom("outbox")
    .select("id")
    .where("receiver", "=", receiver)
    .where("state", "in", states)
    .$if(attempted, (query) => query.where("attempts", ">", 0));

/** Ids of the waitlist's leads whose welcome reads `state`: welcomeOf's rule in SQL (waitlist.test.ts holds the two together). */
export const welcomedIds = ({ db }: Store, state: WelcomeState) =>
  db
    .selectFrom("outbox")
    .select("id")
    .where("receiver", "=", "waitlist")
    .where((eb) => {
      const delivered = (answer: string | null) =>
        eb.and([eb("state", "=", "delivered"), answer === null ? eb("answer", "is", null) : eb("answer", "=", answer)]);
      const pending = (attempted: boolean) =>
        eb.and([eb("state", "=", "pending"), eb("attempts", attempted ? ">" : "=", 0)]);
      if (state === "texted") return delivered("texted");
      if (state === "refused") return delivered("texted:false");
      if (state === "not reported") return delivered(null);
      if (state === "failing") return eb.or([eb("state", "=", "dead"), pending(true)]);
      if (state === "not sent") return eb("state", "=", "revoked");
      return eb.or([eb("state", "in", ["held", "awaiting_start", "awaiting_release"]), pending(false)]);
    });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- another owner's subquery: any of its tables
type Ids = SelectQueryBuilder<any, any, { id: string }> | readonly string[];

export const rowsOf = ({ db }: Store, ids: Ids) => db.selectFrom("outbox").selectAll().where("id", "in", ids).execute();

export async function countsOf({ db }: Store, ids: Ids) {
  const rows = await db
    .selectFrom("outbox")
    .select((eb) => ["state", "attempts", eb.fn.countAll<number>().as("count")])
    .where("id", "in", ids)
    .groupBy(["state", "attempts"])
    .execute();
  return rows.map((row) => ({ state: row.state, attempted: row.attempts > 0, count: Number(row.count) }));
}

/** The unclaimed rows among `ids` in `states` take `change`; the ids it took. */
export async function settleUnclaimed(
  { db }: Store,
  { ids, states, change }: { ids: Ids; states: readonly OutboxState[]; change: Updateable<OutboxTable> },
) {
  const rows = await db
    .updateTable("outbox")
    .set(change)
    .where("id", "in", ids)
    .where("state", "in", states)
    .where(unclaimed(Date.now()))
    .returning("id")
    .execute();
  return rows.map((row) => row.id);
}

export async function deleteRows({ db }: Store, ids: Ids) {
  await db.deleteFrom("outbox").where("id", "in", ids).execute();
}

/** A receiver's rows older than `cutoff`: a subquery, for retention. */
export const idsBefore = ({ db }: Store, receiver: string, cutoff: number) =>
  db.selectFrom("outbox").select("id").where("receiver", "=", receiver).where("created_at", "<", cutoff);

export function attemptsOf({ db }: Store, id: string) {
  return db.selectFrom("outbox_attempts").selectAll().where("outbox_id", "=", id).orderBy("number").execute();
}

export async function lastDeliveredAt({ db }: Store, receiver: string) {
  const row = await db
    .selectFrom("outbox")
    .select((eb) => eb.fn.max("delivered_at").as("at"))
    .where("receiver", "=", receiver)
    .where("state", "=", "delivered")
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}

// What follows is the leads' own: the rows of the forms' receivers.

export type LeadRow = OutboxRow & { state: LeadState };

const leads = ({ db }: Store) =>
  db.selectFrom("outbox").selectAll().where("receiver", "in", formNames).$narrowType<{ state: LeadState }>();

export const welcomeStates = ["texted", "refused", "failing", "waiting", "not reported", "not sent"] as const;
export type WelcomeState = (typeof welcomeStates)[number];

/**
 * A number's welcome, from the lead it signed up under: "not reported" where its receiver took the lead and said
 * nothing of a text (a workflow other than the shipped one), or no lead is kept.
 */
export function welcomeOf(lead: Pick<LeadRow, "state" | "attempts" | "answer"> | undefined): WelcomeState {
  if (!lead) return "not reported";
  if (lead.state === "delivered")
    return lead.answer === "texted" ? "texted" : lead.answer === "texted:false" ? "refused" : "not reported";
  if (lead.state === "dead" || (lead.state === "pending" && lead.attempts > 0)) return "failing";
  return lead.state === "revoked" ? "not sent" : "waiting";
}

/** A pending lead as it is kept before its first attempt, unclaimed. */
export const newLead = (
  lead: Pick<LeadRow, "id" | "receiver" | "dedupe_key" | "payload" | "created_at" | "next_attempt_at">,
): LeadRow => ({
  ...lead,
  state: "pending",
  attempts: 0,
  rounds: 0,
  last_failure: null,
  delivered_at: null,
  answer: null,
  carrier_code: null,
  claimed_by: null,
  claimed_until: null,
});

/** What the receiver said of a lead's welcome text. */
export async function recordWelcome({ db }: Store, id: string, answer: { texted: boolean; code?: string | null }) {
  await db
    .updateTable("outbox")
    .set({ answer: answer.texted ? "texted" : "texted:false", carrier_code: answer.code ?? null })
    .where("id", "=", id)
    .execute();
}

/** Undefined when an open lead with the same values is kept already. */
export function insertLead({ db }: Store, lead: Insertable<OutboxTable> & { state: LeadState }, claim?: Claim) {
  return db
    .insertInto("outbox")
    .values({ ...lead, claimed_by: claim?.token ?? null, claimed_until: claim?.until ?? null })
    .onConflict((conflict) => conflict.doNothing())
    .returningAll()
    .$narrowType<{ state: LeadState }>()
    .executeTakeFirst();
}

export const leadById = (store: Store, id: string) => leads(store).where("id", "=", id).executeTakeFirst();

export const openLeadByKey = (store: Store, key: string) =>
  leads(store).where("dedupe_key", "=", key).executeTakeFirst();

/** Undefined while someone else holds it, or when it is not open. */
export function claimLead({ db }: Store, id: string, claim: Claim) {
  return db
    .updateTable("outbox")
    .set({ claimed_by: claim.token, claimed_until: claim.until })
    .where("id", "=", id)
    .where("receiver", "in", formNames)
    .where("state", "in", openLeadStates)
    .where(unclaimed(Date.now()))
    .returningAll()
    .$narrowType<{ state: LeadState }>()
    .executeTakeFirst();
}

function latestAmong(
  store: Store,
  { ids, form, states, after = -1 }: { ids: readonly string[]; form: string; states: LeadState[]; after?: number },
) {
  if (!ids.length) return Promise.resolve(undefined);
  return leads(store)
    .where("id", "in", ids)
    .where("receiver", "=", form)
    .where("state", "in", states)
    .where("created_at", ">", after)
    .orderBy("created_at", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** The lead the number was welcomed under, if any. */
export const latestLeadAmong = (store: Store, form: string, ids: readonly string[], after: number) =>
  latestAmong(store, { ids, form, states: [...openLeadStates, "delivered"], after });

export const awaitingStartAmong = (store: Store, form: string, ids: readonly string[]) =>
  latestAmong(store, { ids, form, states: ["awaiting_start"] });

/**
 * A revocation: undelivered leads are never sent. Each loses its values and its dedupe key, so a new sign-up is a new
 * lead with a new consent; a claim in flight is let go.
 */
export async function stopLeads({ db }: Store, ids: readonly string[]) {
  if (!ids.length) return 0;
  const { numUpdatedRows } = await db
    .updateTable("outbox")
    .set({
      state: "revoked",
      payload: null,
      dedupe_key: null,
      claimed_by: null,
      claimed_until: null,
      last_failure: "consent revoked",
    })
    .where("id", "in", ids)
    .where("state", "in", [...openLeadStates, "awaiting_start"])
    .executeTakeFirst();
  return Number(numUpdatedRows);
}

/** A START: due `at`, for the next pass to send. */
export async function releaseAwaitingStart({ db }: Store, ids: readonly string[], at: number) {
  if (!ids.length) return 0;
  const { numUpdatedRows } = await db
    .updateTable("outbox")
    .set({ state: "pending", next_attempt_at: at, claimed_by: null, claimed_until: null })
    .where("id", "in", ids)
    .where("state", "=", "awaiting_start")
    .executeTakeFirst();
  return Number(numUpdatedRows);
}

type LeadFilter = { states?: readonly LeadState[]; form?: string; withValues?: boolean; ids?: readonly string[] };

function filtered({ db }: Store, filter: LeadFilter) {
  return db
    .selectFrom("outbox")
    .where("receiver", "in", filter.form ? [filter.form] : formNames)
    .$if(filter.ids !== undefined, (query) =>
      filter.ids!.length ? query.where("id", "in", filter.ids!) : query.where(sql<boolean>`1 = 0`),
    )
    .$if(Boolean(filter.states?.length), (query) => query.where("state", "in", filter.states!))
    .$if(filter.withValues !== undefined, (query) => query.where("payload", filter.withValues ? "is not" : "is", null));
}

export function listLeads(
  store: Store,
  filter: LeadFilter = {},
  { limit, newestFirst = false }: { limit?: number; newestFirst?: boolean } = {},
) {
  return filtered(store, filter)
    .selectAll()
    .$narrowType<{ state: LeadState }>()
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
    .selectFrom("outbox")
    .select("id")
    .where("receiver", "=", form)
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
/** An owner dropped them past the day's budget: the rows and their logs go. The ids dropped. */
export async function dropAwaitingRelease({ db }: Store, ids: readonly string[]) {
  if (!ids.length) return [];
  const rows = await db
    .deleteFrom("outbox")
    .where("id", "in", ids)
    .where("state", "=", "awaiting_release")
    .returning("id")
    .execute();
  return rows.map((row) => row.id);
}

export async function dropLead({ db }: Store, id: string) {
  const { numDeletedRows } = await db
    .deleteFrom("outbox")
    .where("id", "=", id)
    .where("receiver", "in", formNames)
    .where("state", "in", openLeadStates)
    .executeTakeFirst();
  return numDeletedRows > 0n;
}

/** Retention: the row and its delivery log stay. */
export async function forgetDeliveredPayloads({ db }: Store, cutoff: number) {
  const { numUpdatedRows } = await db
    .updateTable("outbox")
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
    .updateTable("outbox")
    .set({ state: "revoked", payload: null, dedupe_key: null, last_failure: "no START within retention" })
    .where("state", "=", "awaiting_start")
    .where("created_at", "<", cutoff)
    .executeTakeFirst();
  return Number(numUpdatedRows);
}
