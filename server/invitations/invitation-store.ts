import "server-only";
import type { ExpressionBuilder, Insertable, Selectable, Updateable } from "kysely";
import { inTransaction, type Store } from "@/server/db/connect";
import { invitationStates, type Database, type InvitationState, type InvitationsTable } from "@/server/db/schema";
import { INVITATIONS } from "@/server/env";
import {
  countsOf,
  deleteRows,
  idsBefore,
  idsIn,
  insertRows,
  rowsOf,
  settleUnclaimed,
  type OutboxRow,
} from "@/server/outbox/outbox-store";

export const ownedTables = [
  "invitations",
  "invitation_waves",
  "invitation_pace",
] as const satisfies readonly (keyof Database)[];

/** An invitation with its delivery state, the outbox row of the same id. */
export type InvitationRow = Selectable<InvitationsTable> &
  Pick<OutboxRow, "attempts" | "rounds" | "created_at" | "next_attempt_at" | "delivered_at" | "last_failure"> & {
    state: InvitationState;
  };

const waitingStates: InvitationState[] = ["queued", "waiting"];

/**
 * No attempt can have reached the carrier (never tried, or refused before a text, as a wrong secret is): a later wave
 * may take the number. A failure before any attempt stays: the next wave could not text it either.
 */
const givenBack = (store: Store) => (eb: ExpressionBuilder<Database, "invitations">) =>
  eb.and([
    eb("reached", "=", 0),
    eb.or([
      eb("id", "in", idsIn(store, INVITATIONS, ["cancelled"])),
      eb("id", "in", idsIn(store, INVITATIONS, ["failed"], { attempted: true })),
    ]),
  ]);

/** But for one given back by a cancel. */
export async function invitedAmong(store: Store, phones?: readonly string[]) {
  const query = store.db
    .selectFrom("invitations")
    .select("phone")
    .where((eb) => eb.not(givenBack(store)(eb)));
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

/**
 * A number invited meanwhile is not invited again: the phone is unique. Each is queued a millisecond after the one
 * before it, so the outbox sends those due together in the wave's order. Undefined when the name is taken.
 */
export function insertWave(
  store: Store,
  wave: { name: string; at: number },
  invitations: Insertable<InvitationsTable>[],
) {
  return inTransaction(store, async (tx) => {
    const made = await tx.db
      .insertInto("invitation_waves")
      .values({ name: wave.name, created_at: wave.at, size: 0 })
      .onConflict((conflict) => conflict.column("name").doNothing())
      .returning("name")
      .executeTakeFirst();
    if (!made) return undefined;
    // Most waves follow no cancel: one look spares them a statement per batch.
    const anyGivenBack = await tx.db
      .selectFrom("invitations")
      .select("id")
      .where(givenBack(tx))
      .limit(1)
      .executeTakeFirst();
    let queued = 0;
    // 7 columns a row: 100 rows a statement stays under SQLite's 999 bound parameters.
    for (let start = 0; start < invitations.length; start += 100) {
      const batch = invitations.slice(start, start + 100);
      const phones = batch.map((invitation) => invitation.phone);
      if (anyGivenBack) {
        const given = await tx.db
          .selectFrom("invitations")
          .select("id")
          .where(givenBack(tx))
          .where("phone", "in", phones)
          .execute();
        const ids = given.map((row) => row.id);
        if (ids.length) {
          await tx.db.deleteFrom("invitations").where("id", "in", ids).execute();
          await deleteRows(tx, ids);
        }
      }
      const rows = await tx.db
        .insertInto("invitations")
        .values(batch)
        .onConflict((conflict) => conflict.column("phone").doNothing())
        .returning(["id", "phone", "text", "position"])
        .execute();
      await insertRows(
        tx,
        rows.map((row) => ({
          id: row.id,
          receiver: INVITATIONS,
          payload: JSON.stringify({ phone: row.phone, text: row.text }),
          state: "queued",
          created_at: wave.at + row.position,
          next_attempt_at: wave.at,
        })),
      );
      queued += rows.length;
    }
    await tx.db.updateTable("invitation_waves").set({ size: queued }).where("name", "=", wave.name).execute();
    return queued;
  });
}

export const invitationById = ({ db }: Store, id: string) =>
  db.selectFrom("invitations").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** Taken by a sender: the first time, and the consent record checked then. */
export async function markClaimed({ db }: Store, id: string, { at, consentId }: { at: number; consentId: string }) {
  await db
    .updateTable("invitations")
    .set((eb) => ({ claimed_at: eb.fn.coalesce("claimed_at", eb.val(at)), consent_id: consentId }))
    .where("id", "=", id)
    .execute();
}

/** What an attempt says of it: whether it may have reached the carrier, and what the carrier answered. */
export async function recordAnswer(
  { db }: Store,
  id: string,
  { reached, ...answer }: { reached: boolean } & Pick<Updateable<InvitationsTable>, "answer" | "carrier_code">,
) {
  await db
    .updateTable("invitations")
    .set((eb) => ({ ...answer, reached: eb("reached", "+", reached ? 1 : 0) }))
    .where("id", "=", id)
    .execute();
}

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

const ofWave = ({ db }: Store, wave: string) => db.selectFrom("invitations").select("id").where("wave", "=", wave);

/** Cancels what a wave has not sent and nobody is sending; those no attempt may have reached are given back. */
export function cancelWave(store: Store, name: string, now: number) {
  return inTransaction(store, async (tx) => {
    const wave = await tx.db
      .updateTable("invitation_waves")
      .set((eb) => ({ cancelled_at: eb.fn.coalesce("cancelled_at", eb.val(now)) }))
      .where("name", "=", name)
      .returning("name")
      .executeTakeFirst();
    if (!wave) return undefined;
    const stopped = await settleUnclaimed(tx, {
      ids: ofWave(tx, name),
      states: waitingStates,
      change: { state: "cancelled", last_failure: "wave cancelled" },
    });
    const reached = stopped.length
      ? await tx.db.selectFrom("invitations").select("id").where("id", "in", stopped).where("reached", "=", 0).execute()
      : [];
    const counts = await countsOf(tx, ofWave(tx, name));
    return {
      cancelled: stopped.length,
      givenBack: reached.length,
      onTheirWay: counts
        .filter((row) => waitingStates.includes(row.state as InvitationState))
        .reduce((sum, row) => sum + row.count, 0),
    };
  });
}

/** Only the first: two opens at once count once. */
export async function markOpened({ db }: Store, id: string, at: number) {
  await db
    .updateTable("invitations")
    .set({ opened_at: at })
    .where("id", "=", id)
    .where("opened_at", "is", null)
    .execute();
}

/** By state (a refusal by its carrier code), how many were retried after a failure, and how many were opened. */
export async function invitationCounts(store: Store, wave?: string) {
  const ids = wave === undefined ? idsIn(store, INVITATIONS, invitationStates) : ofWave(store, wave);
  const [counts, refusals, opened] = await Promise.all([
    countsOf(store, ids),
    store.db
      .selectFrom("invitations")
      .select((eb) => ["carrier_code", eb.fn.countAll<number>().as("count")])
      .where("id", "in", idsIn(store, INVITATIONS, ["refused"]))
      .$if(wave !== undefined, (query) => query.where("wave", "=", wave!))
      .groupBy("carrier_code")
      .execute(),
    store.db
      .selectFrom("invitations")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("opened_at", "is not", null)
      .$if(wave !== undefined, (query) => query.where("wave", "=", wave!))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    states: counts.map(({ state, count }) => ({ state: state as InvitationState, count })),
    retrying: counts.filter((row) => row.state === "queued" && row.attempted).reduce((sum, row) => sum + row.count, 0),
    refusals: refusals.map((row) => ({ carrierCode: row.carrier_code, count: Number(row.count) })),
    opened: Number(opened.count),
  };
}

export async function listInvitations(
  store: Store,
  filter: { wave?: string; phone?: string; phones?: readonly string[]; code?: string; state?: InvitationState } = {},
): Promise<InvitationRow[]> {
  const chosen = store.db
    .selectFrom("invitations")
    .$if(filter.wave !== undefined, (query) => query.where("wave", "=", filter.wave!))
    .$if(filter.phone !== undefined, (query) => query.where("phone", "=", filter.phone!))
    .$if(filter.phones !== undefined, (query) => query.where("phone", "in", ["", ...filter.phones!]))
    .$if(filter.code !== undefined, (query) => query.where("code", "=", filter.code!))
    .$if(filter.state !== undefined, (query) => query.where("id", "in", idsIn(store, INVITATIONS, [filter.state!])));
  const [invitations, outbox] = await Promise.all([chosen.selectAll().execute(), rowsOf(store, chosen.select("id"))]);
  const delivery = new Map(outbox.map((row) => [row.id, row]));
  return invitations
    .flatMap((invitation) => {
      const row = delivery.get(invitation.id);
      if (!row) return [];
      const { attempts, rounds, created_at, next_attempt_at, delivered_at, last_failure } = row;
      const state = row.state as InvitationState;
      return [{ ...invitation, state, attempts, rounds, created_at, next_attempt_at, delivered_at, last_failure }];
    })
    .sort((a, b) => a.created_at - b.created_at);
}

/** Retention: invitations go with the consent records of their time; so do waves left empty. */
export function forgetOldInvitations(store: Store, cutoff: number) {
  return inTransaction(store, async (tx) => {
    const { numDeletedRows } = await tx.db
      .deleteFrom("invitations")
      .where("id", "in", idsBefore(tx, INVITATIONS, cutoff))
      .executeTakeFirst();
    await deleteRows(tx, idsBefore(tx, INVITATIONS, cutoff));
    await tx.db
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
export const invitedPhones = (store: Store, states: readonly InvitationState[]) =>
  store.db
    .selectFrom("invitations")
    .select("phone")
    .where("id", "in", idsIn(store, INVITATIONS, states));
