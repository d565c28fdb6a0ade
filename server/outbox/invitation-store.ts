import "server-only";
import type { ExpressionBuilder, Insertable, Selectable, Updateable } from "kysely";
import { unclaimed, type Claim } from "@/server/outbox/claims";
import { inTransaction, type Store } from "@/server/db/connect";
import type { Database, InvitationState, InvitationsTable } from "@/server/db/schema";

/** The tables this file owns: the only file whose SQL names them (server/db/table-owners.test.ts). */
export const ownedTables = [
  "invitations",
  "invitation_waves",
  "invitation_pace",
] as const satisfies readonly (keyof Database)[];

/** The SQL of `invitations`, `invitation_waves` and `invitation_pace`. */

export type InvitationRow = Selectable<InvitationsTable>;

/** States an invitation waits in: its turn, or its sending hours. */
export const waitingStates: InvitationState[] = ["queued", "waiting"];

/**
 * Cancelled, or failed for good after its attempts, with none of them able
 * to have reached the carrier (`reached`: never tried, or every try refused
 * before a text, as a wrong secret is): the number was never sent anything,
 * and a later wave may take it (its row moves there). One an attempt may have
 * reached stays invited. (A failure before any attempt, a number with no
 * sending hours, stays too: the next wave could not text it either.)
 */
const givenBack = (eb: ExpressionBuilder<Database, "invitations">) =>
  eb.and([
    eb("reached", "=", 0),
    eb.or([eb("state", "=", "cancelled"), eb.and([eb("state", "=", "failed"), eb("attempts", ">", 0)])]),
  ]);

/**
 * Which of these numbers (every number, when none is given) were invited
 * already, in any wave, whatever became of it, but for one given back by a cancel.
 */
export async function invitedAmong({ db }: Store, phones?: readonly string[]) {
  const query = db
    .selectFrom("invitations")
    .select("phone")
    .where((eb) => eb.not(givenBack(eb)));
  if (phones === undefined) return new Set((await query.execute()).map((row) => row.phone));
  const invited = new Set<string>();
  // Stays under SQLite's 999 bound parameters.
  for (let start = 0; start < phones.length; start += 450)
    for (const row of await query.where("phone", "in", phones.slice(start, start + 450)).execute())
      invited.add(row.phone);
  return invited;
}

/** Every wave, newest first: its name, when it was queued, how many it took, and when it was cancelled. */
export const allWaves = ({ db }: Store) =>
  db.selectFrom("invitation_waves").selectAll().orderBy("created_at", "desc").orderBy("name").execute();

export const waveNamed = ({ db }: Store, name: string) =>
  db.selectFrom("invitation_waves").selectAll().where("name", "=", name).executeTakeFirst();

/**
 * Records a wave and its invitations, in one transaction. A number invited
 * meanwhile (another command, at the same moment) is not invited again: the
 * phone is unique. Returns how many were queued; undefined when the wave's
 * name is taken.
 */
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
    // A number a cancel gave back leaves its old wave for this one. Most waves follow no cancel: one look spares
    // them a statement per batch, about a third of a Postgres queue of 1,000 (85 to 56 ms, bench/invitations.ts).
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

/**
 * The invitation due first, in the order invitations were queued, that no
 * sender holds; locked until the transaction ends on Postgres (others skip
 * it), and under SQLite's write lock already. `ahead` (a probe): the first a
 * failure put back in the queue, however far its next round is.
 */
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

/** Changes an invitation nobody holds (skipped, waiting for its hours, failed): in the claiming transaction. */
export const setUnclaimed = ({ db }: Store, id: string, change: Updateable<InvitationsTable>) =>
  db.updateTable("invitations").set(change).where("id", "=", id).execute();

const PACE = "invitations";

// A slot further ahead than its interval and this was set by a clock that has since gone back (set by
// hand, or an instance's clock running ahead): it is due. Far longer than any wait for the row's lock,
// during which `now` (read before it) grows stale.
const CLOCK_SET_BACK_MS = 60_000;

/**
 * Takes the next sending slot of every instance's pace: only when it is due,
 * in one compare-and-set, so two instances never take one slot. Returns
 * undefined when taken, or when the slot is due (a later time).
 */
export async function takeSlot({ db }: Store, now: number, intervalMs: number) {
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

/** Claims an invitation for its sender, noting the consent record it relies on now. */
export const claim = ({ db }: Store, taken: { id: string; claim: Claim; now: number; consentId: string }) =>
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

/**
 * Records what became of a claimed invitation and lets the claim go. Only its
 * holder may, except to record that it was texted or refused (the number was
 * reached, whoever held it). `reached` says whether this attempt may have
 * reached the carrier (givenBack). A failure in a wave cancelled meanwhile
 * ends it cancelled.
 */
export function settleInvitation(
  store: Store,
  {
    row,
    token,
    change,
    reached,
  }: {
    row: Pick<InvitationRow, "id" | "wave">;
    /** The claim's token: only its holder settles, but for an answer. */
    token: string;
    change: Updateable<InvitationsTable> & { state: InvitationState };
    /** Whether this attempt may have reached the carrier (givenBack). */
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

/**
 * Cancels what a wave has not sent and nobody is sending. Returns how many it
 * cancelled, how many of those no attempt may have reached the carrier with
 * (given back: a later wave may take them), and how many were on their way and still go. Undefined for
 * a wave that does not exist.
 */
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

/** How many invitations stand in each state (and carrier code), of one wave or all. */
export async function invitationCounts({ db }: Store, wave?: string) {
  const rows = await db
    .selectFrom("invitations")
    .select((eb) => ["state", "carrier_code", eb.fn.countAll<number>().as("count")])
    .$if(wave !== undefined, (query) => query.where("wave", "=", wave!))
    .groupBy(["state", "carrier_code"])
    .execute();
  return rows.map((row) => ({ state: row.state, carrierCode: row.carrier_code, count: Number(row.count) }));
}

/**
 * Makes every queued invitation due now: the workflow answered again, so
 * those waiting for a later round of the schedule go out with the next pass,
 * at the pace and within their hours as ever.
 */
export async function releaseQueued({ db }: Store, now: number) {
  await db
    .updateTable("invitations")
    .set({ next_attempt_at: now })
    .where("state", "=", "queued")
    .where("next_attempt_at", ">", now)
    .execute();
}

/**
 * What waits on the invitations' receiver, as the alerts count a form's open
 * leads: `pending`, queued or waiting for sending hours, and `dead`, those
 * sent and failed for good once their schedule ran out; each with its
 * oldest queueing time.
 */
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

/** How many of those waiting are past due with a failure behind them: retried after an outage. */
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

/** Invitations in the order they were queued: of a wave, of a number, in a state, or all. */
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

/** Retention: invitations queued before `cutoff` go with the consent records of their time; so do waves left empty. */
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

/**
 * The numbers an invitation of one of these states was made for (each number
 * has one invitation at most): a subquery the console's waitlist filters by,
 * so the consent's owner need not name this table.
 */
export const invitedPhones = ({ db }: Store, states: readonly InvitationState[]) =>
  db.selectFrom("invitations").select("phone").where("state", "in", states);
