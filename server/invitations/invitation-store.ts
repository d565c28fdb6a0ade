import "server-only";
import type { ExpressionBuilder, Insertable, Kysely, Selectable, Updateable } from "kysely";
import type { Engine, Store } from "@/server/db/connect";
import type { Database, InvitationState, InvitationsTable } from "@/server/db/schema";

/** The SQL of `invitations`, `invitation_waves` and `invitation_pace`. */

export type InvitationRow = Selectable<InvitationsTable>;
type Db = Kysely<Database>;

/** Nobody is sending it: never claimed, or its claim ran out (the sender that held it died). */
const unclaimed = (now: number) => (eb: ExpressionBuilder<Database, "invitations">) =>
  eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<=", now)]);

/** States an invitation waits in: its turn, or its sending hours. */
export const waitingStates: InvitationState[] = ["queued", "waiting"];

/** Which of these numbers (every number, when none is given) were invited already, in any wave, whatever became of it. */
export async function invitedAmong(db: Db, phones?: readonly string[]) {
  const query = db.selectFrom("invitations").select("phone");
  if (phones === undefined) return new Set((await query.execute()).map((row) => row.phone));
  const invited = new Set<string>();
  // Stays under SQLite's 999 bound parameters.
  for (let start = 0; start < phones.length; start += 450)
    for (const row of await query.where("phone", "in", phones.slice(start, start + 450)).execute())
      invited.add(row.phone);
  return invited;
}

export const waveNamed = (db: Db, name: string) =>
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
    let queued = 0;
    // 18 columns a row: 40 rows a statement stays under SQLite's 999 bound parameters.
    for (let start = 0; start < invitations.length; start += 40) {
      const rows = await trx
        .insertInto("invitations")
        .values(invitations.slice(start, start + 40))
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
 * it), and under SQLite's write lock already.
 */
export function nextDue(db: Db, engine: Engine, now: number, skipIds: readonly string[]) {
  return db
    .selectFrom("invitations")
    .selectAll()
    .where("state", "in", waitingStates)
    .where("next_attempt_at", "<=", now)
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
export const setUnclaimed = (db: Db, id: string, change: Updateable<InvitationsTable>) =>
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
export async function takeSlot(db: Db, now: number, intervalMs: number) {
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
export const claim = (db: Db, id: string, holder: { token: string; until: number }, now: number, consentId: string) =>
  db
    .updateTable("invitations")
    .set({ claimed_by: holder.token, claimed_until: holder.until, claimed_at: now, consent_id: consentId })
    .where("id", "=", id)
    .execute();

/**
 * Records what became of a claimed invitation and lets the claim go. Only its
 * holder may, except to record that it was texted or refused (the number was
 * reached, whoever held it). A failure in a wave cancelled meanwhile ends it
 * cancelled.
 */
export function settleInvitation(
  { db }: Store,
  row: Pick<InvitationRow, "id" | "wave">,
  token: string,
  change: Updateable<InvitationsTable> & { state: InvitationState },
  attempts: number,
) {
  return db.transaction().execute(async (trx) => {
    const wave = await waveNamed(trx, row.wave);
    const answered = change.state === "texted" || change.state === "refused";
    const cancelled = wave !== undefined && wave.cancelled_at !== null;
    const state = !answered && cancelled ? "cancelled" : change.state;
    await trx
      .updateTable("invitations")
      .set((eb) => ({
        ...change,
        state,
        attempts: eb("attempts", "+", attempts),
        claimed_by: null,
        claimed_until: null,
      }))
      .where("id", "=", row.id)
      .where((eb) => (answered ? eb("state", "not in", ["texted", "refused"]) : eb("claimed_by", "=", token)))
      .execute();
  });
}

/** Cancels what a wave has not sent and nobody is sending: returns how many. Undefined for a wave that does not exist. */
export function cancelWave({ db }: Store, name: string, now: number) {
  return db.transaction().execute(async (trx) => {
    const wave = await trx
      .updateTable("invitation_waves")
      .set((eb) => ({ cancelled_at: eb.fn.coalesce("cancelled_at", eb.val(now)) }))
      .where("name", "=", name)
      .returning("name")
      .executeTakeFirst();
    if (!wave) return undefined;
    const { numUpdatedRows } = await trx
      .updateTable("invitations")
      .set({ state: "cancelled", last_failure: "wave cancelled" })
      .where("wave", "=", name)
      .where("state", "in", waitingStates)
      .where(unclaimed(now))
      .executeTakeFirst();
    return Number(numUpdatedRows);
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

/** Invitations in the order they were queued: of a wave, of a number, or all. */
export function listInvitations({ db }: Store, filter: { wave?: string; phone?: string } = {}) {
  return db
    .selectFrom("invitations")
    .selectAll()
    .$if(filter.wave !== undefined, (query) => query.where("wave", "=", filter.wave!))
    .$if(filter.phone !== undefined, (query) => query.where("phone", "=", filter.phone!))
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
