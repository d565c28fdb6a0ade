import "server-only";
import type { ExpressionBuilder, Insertable, Selectable, Updateable } from "kysely";
import { unclaimed, type Claim } from "@/server/outbox/claims";
import { inTransaction, type Store } from "@/server/db/connect";
import type { Database, InvitationState, InvitationsTable } from "@/server/db/schema";

export const ownedTables = [
  "invitations",
  "invitation_waves",
  "invitation_pace",
] as const satisfies readonly (keyof Database)[];

export type InvitationRow = Selectable<InvitationsTable>;

export const waitingStates: InvitationState[] = ["queued", "waiting"];

/**
 * No attempt can have reached the carrier (never tried, or refused before a text, as a wrong secret is): a later wave
 * may take the number. A failure before any attempt stays: the next wave could not text it either.
 */
const givenBack = (eb: ExpressionBuilder<Database, "invitations">) =>
  eb.and([
    eb("reached", "=", 0),
    eb.or([eb("state", "=", "cancelled"), eb.and([eb("state", "=", "failed"), eb("attempts", ">", 0)])]),
  ]);

/** But for one given back by a cancel. */
export async function invitedAmong({ db }: Store, phones?: readonly string[]) {
  const query = db
    .selectFrom("invitations")
    .select("phone")
    .where((eb) => eb.not(givenBack(eb)));
  if (phones === undefined) return new Set((await query.execute()).map((row) => row.phone));
  const invited = new Set<string>();
  // Under SQLite's 999 bound parameters.
  for (let start = 0; start < phones.length; start += 450)
    for (const row of await query.where("phone", "in", phones.slice(start, start + 450)).execute())
      invited.add(row.phone);
  return invited;
}

export const allWaves = ({ db }: Store) =>
  db.selectFrom("invitation_waves").selectAll().orderBy("created_at", "desc").orderBy("name").execute();

export const waveNamed = ({ db }: Store, name: string) =>
  db.selectFrom("invitation_waves").selectAll().where("name", "=", name).executeTakeFirst();

/** A number invited meanwhile is not invited again: the phone is unique. Undefined when the name is taken. */
export function insertWave(
  { db }: Store,
  wave: { name: string; at: number },
  invitations: Insertable<InvitationsTable>[],
) {
  return db.transaction().execute(async (trx) => {
    const made = await trx
      .insertInto("invitation_waves")
      .values({ name: wave.name, created_at: wave.at, size: 0 })
      .onConflict((conflict) => conflict.column("name").doNothing())
      .returning("name")
      .executeTakeFirst();
    if (!made) return undefined;
    // Most waves follow no cancel: one look spares them a statement per batch.
    const anyGivenBack = await trx.selectFrom("invitations").select("id").where(givenBack).limit(1).executeTakeFirst();
    let queued = 0;
    // 18 columns a row: 40 rows a statement stays under SQLite's 999 bound parameters.
    for (let start = 0; start < invitations.length; start += 40) {
      const batch = invitations.slice(start, start + 40);
      if (anyGivenBack)
        await trx
          .deleteFrom("invitations")
          .where(givenBack)
          .where(
            "phone",
            "in",
            batch.map((invitation) => invitation.phone),
          )
          .execute();
      const rows = await trx
        .insertInto("invitations")
        .values(batch)
        .onConflict((conflict) => conflict.column("phone").doNothing())
        .returning("id")
        .execute();
      queued += rows.length;
    }
    await trx.updateTable("invitation_waves").set({ size: queued }).where("name", "=", wave.name).execute();
    return queued;
  });
}

/** Locked until the transaction ends on Postgres (others skip it). `ahead` (a probe): the first a failure put back, however far its next round is. */
export function nextDue(
  { db, engine }: Store,
  { now, skipIds, ahead }: { now: number; skipIds: readonly string[]; ahead: boolean },
) {
  return db
    .selectFrom("invitations")
    .selectAll()
    .$if(!ahead, (query) => query.where("state", "in", waitingStates).where("next_attempt_at", "<=", now))
    .$if(ahead, (query) => query.where("state", "=", "queued").where("attempts", ">", 0))
    .where(unclaimed(now))
    .$if(skipIds.length > 0, (query) => query.where("id", "not in", skipIds))
    .orderBy("next_attempt_at")
    .orderBy("queued_at")
    .orderBy("position")
    .limit(1)
    .$if(engine === "postgres", (query) => query.forUpdate().skipLocked())
    .executeTakeFirst();
}

export const setUnclaimed = ({ db }: Store, id: string, change: Updateable<InvitationsTable>) =>
  db.updateTable("invitations").set(change).where("id", "=", id).execute();

const PACE = "invitations";

// A slot further ahead than this was set by a clock that has since gone back: it is due.
const CLOCK_SET_BACK_MS = 60_000;

/** One compare-and-set, so two instances never take one slot: undefined when taken, else the time the slot is due. */
export async function reserveSlot({ db }: Store, now: number, intervalMs: number) {
  await db
    .insertInto("invitation_pace")
    .values({ id: PACE, next_at: 0 })
    .onConflict((conflict) => conflict.column("id").doNothing())
    .execute();
  const taken = await db
    .updateTable("invitation_pace")
    .set({ next_at: now + intervalMs })
    .where("id", "=", PACE)
    .where((eb) => eb.or([eb("next_at", "<=", now), eb("next_at", ">", now + intervalMs + CLOCK_SET_BACK_MS)]))
    .returning("next_at")
    .executeTakeFirst();
  if (taken) return undefined;
  const row = await db.selectFrom("invitation_pace").select("next_at").where("id", "=", PACE).executeTakeFirst();
  return Number(row?.next_at ?? now);
}

export const claimInvitation = ({ db }: Store, taken: { id: string; claim: Claim; now: number; consentId: string }) =>
  db
    .updateTable("invitations")
    .set({
      claimed_by: taken.claim.token,
      claimed_until: taken.claim.until,
      claimed_at: taken.now,
      consent_id: taken.consentId,
    })
    .where("id", "=", taken.id)
    .execute();

/** Only the claim's holder settles, but for an answer: the number was reached, whoever held it. A failure in a wave cancelled meanwhile ends it cancelled. */
export function settleInvitation(
  store: Store,
  {
    row,
    token,
    change,
    reached,
  }: {
    row: Pick<InvitationRow, "id" | "wave">;
    token: string;
    change: Updateable<InvitationsTable> & { state: InvitationState };
    reached: boolean;
  },
) {
  return inTransaction(store, async (tx) => {
    const wave = await waveNamed(tx, row.wave);
    const answered = change.state === "texted" || change.state === "refused";
    const cancelled = wave !== undefined && wave.cancelled_at !== null;
    const state = !answered && cancelled ? "cancelled" : change.state;
    await tx.db
      .updateTable("invitations")
      .set((eb) => ({
        ...change,
        state,
        attempts: eb("attempts", "+", 1),
        reached: eb("reached", "+", reached ? 1 : 0),
        claimed_by: null,
        claimed_until: null,
      }))
      .where("id", "=", row.id)
      .where((eb) => (answered ? eb("state", "not in", ["texted", "refused"]) : eb("claimed_by", "=", token)))
      .execute();
  });
}

/** Cancels what a wave has not sent and nobody is sending; those no attempt may have reached are given back. */
export function cancelWave({ db }: Store, name: string, now: number) {
  return db.transaction().execute(async (trx) => {
    const wave = await trx
      .updateTable("invitation_waves")
      .set((eb) => ({ cancelled_at: eb.fn.coalesce("cancelled_at", eb.val(now)) }))
      .where("name", "=", name)
      .returning("name")
      .executeTakeFirst();
    if (!wave) return undefined;
    const stopped = await trx
      .updateTable("invitations")
      .set({ state: "cancelled", last_failure: "wave cancelled" })
      .where("wave", "=", name)
      .where("state", "in", waitingStates)
      .where(unclaimed(now))
      .returning("reached")
      .execute();
    const onTheirWay = await trx
      .selectFrom("invitations")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("wave", "=", name)
      .where("state", "in", waitingStates)
      .executeTakeFirst();
    return {
      cancelled: stopped.length,
      givenBack: stopped.filter((row) => row.reached === 0).length,
      onTheirWay: Number(onTheirWay?.count ?? 0),
    };
  });
}

export async function invitationCounts({ db }: Store, wave?: string) {
  const rows = await db
    .selectFrom("invitations")
    .select((eb) => ["state", "carrier_code", eb.fn.countAll<number>().as("count")])
    .$if(wave !== undefined, (query) => query.where("wave", "=", wave!))
    .groupBy(["state", "carrier_code"])
    .execute();
  return rows.map((row) => ({ state: row.state, carrierCode: row.carrier_code, count: Number(row.count) }));
}

/** The workflow answered again: what waits for a later round goes with the next pass, at the pace and within its hours. */
export async function releaseQueued({ db }: Store, now: number) {
  await db
    .updateTable("invitations")
    .set({ next_attempt_at: now })
    .where("state", "=", "queued")
    .where("next_attempt_at", ">", now)
    .execute();
}

/** As the alerts count a form's open leads: pending (queued or waiting for hours) and dead (failed after attempts). */
export async function openInvitationCounts({ db }: Store) {
  const rows = await db
    .selectFrom("invitations")
    .select((eb) => ["state", eb.fn.countAll<number>().as("count"), eb.fn.min("queued_at").as("oldest")])
    .where((eb) =>
      eb.or([eb("state", "in", ["queued", "waiting"]), eb.and([eb("state", "=", "failed"), eb("attempts", ">", 0)])]),
    )
    .groupBy("state")
    .execute();
  const of = (states: readonly string[]) => {
    const found = rows.filter((row) => states.includes(row.state));
    const count = found.reduce((sum, row) => sum + Number(row.count), 0);
    return { count, oldest: count ? Math.min(...found.map((row) => Number(row.oldest))) : undefined };
  };
  return { pending: of(["queued", "waiting"]), dead: of(["failed"]) };
}

/** Retried after an outage: past due with a failure behind them. */
export async function retryingCount({ db }: Store, wave?: string) {
  const row = await db
    .selectFrom("invitations")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("state", "=", "queued")
    .where("attempts", ">", 0)
    .$if(wave !== undefined, (query) => query.where("wave", "=", wave!))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export function listInvitations(
  { db }: Store,
  filter: { wave?: string; phone?: string; state?: InvitationState } = {},
) {
  return db
    .selectFrom("invitations")
    .selectAll()
    .$if(filter.wave !== undefined, (query) => query.where("wave", "=", filter.wave!))
    .$if(filter.phone !== undefined, (query) => query.where("phone", "=", filter.phone!))
    .$if(filter.state !== undefined, (query) => query.where("state", "=", filter.state!))
    .orderBy("queued_at")
    .orderBy("position")
    .execute();
}

/** Retention: invitations go with the consent records of their time; so do waves left empty. */
export function forgetOldInvitations({ db }: Store, cutoff: number) {
  return db.transaction().execute(async (trx) => {
    const { numDeletedRows } = await trx.deleteFrom("invitations").where("queued_at", "<", cutoff).executeTakeFirst();
    await trx
      .deleteFrom("invitation_waves")
      .where("created_at", "<", cutoff)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb.selectFrom("invitations").select("id").whereRef("invitations.wave", "=", "invitation_waves.name"),
          ),
        ),
      )
      .execute();
    return Number(numDeletedRows);
  });
}

/** A subquery the console's waitlist filters by, so the consent's owner need not name this table. */
export const invitedPhones = ({ db }: Store, states: readonly InvitationState[]) =>
  db.selectFrom("invitations").select("phone").where("state", "in", states);
