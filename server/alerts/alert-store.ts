import "server-only";
import type { Store } from "@/server/db/connect";

/** The kinds of alert the channel hears. */
export type AlertKind = "failing" | "dead" | "held" | "recovered" | "database_down" | "database_up";

/** What the channel is told of a form's receiver. */
export type Said = "failing" | "working";

/** What the channel last said of a form's receiver, and what happened since (alert_states). */
export type AlertState = {
  reported: Said | null;
  reported_at: number;
  failures: number;
  first_failure_at: number | null;
  working_since: number | null;
  working_how: "delivered" | "idle" | null;
};

export const unsaid: AlertState = {
  reported: null,
  reported_at: 0,
  failures: 0,
  first_failure_at: null,
  working_since: null,
  working_how: null,
};

const numberOrNull = (value: number | null) => (value === null ? null : Number(value));

/**
 * Takes the right to send one alert of a kind for a form now, in one
 * statement: false when one went out within the interval, from any instance.
 */
export async function claimAlert({ db }: Store, kind: AlertKind, form: string, now: number, intervalMs: number) {
  const row = await db
    .insertInto("alerts")
    .values({ kind, form, last_sent_at: now })
    .onConflict((conflict) =>
      conflict
        .columns(["kind", "form"])
        .doUpdateSet({ last_sent_at: now })
        .where("alerts.last_sent_at", "<=", now - intervalMs),
    )
    .returning("kind")
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Lets the next alert of a kind go out at once: each outage's dead leads are
 * news, whatever an earlier one's were. With `sentAt`, only the claim taken
 * then is let go (an alert the channel did not take).
 */
export async function rearmAlert({ db }: Store, kind: AlertKind, form: string, sentAt?: number) {
  await db
    .updateTable("alerts")
    .set({ last_sent_at: 0 })
    .where("kind", "=", kind)
    .where("form", "=", form)
    .$if(sentAt !== undefined, (query) => query.where("last_sent_at", "=", sentAt!))
    .execute();
}

export async function alertStateOf({ db }: Store, form: string): Promise<AlertState> {
  const row = await db.selectFrom("alert_states").selectAll().where("form", "=", form).executeTakeFirst();
  return row
    ? {
        ...row,
        reported_at: Number(row.reported_at),
        failures: Number(row.failures),
        first_failure_at: numberOrNull(row.first_failure_at),
        working_since: numberOrNull(row.working_since),
      }
    : unsaid;
}

/** Changes a form's alert state, making its row first. */
export async function changeAlertState({ db }: Store, form: string, change: Partial<AlertState>) {
  await db
    .insertInto("alert_states")
    .values({ form, ...change })
    .onConflict((conflict) => conflict.column("form").doUpdateSet(change))
    .execute();
}

/**
 * Takes the right to tell the channel `said` about a form's receiver now, in
 * one statement, from the state this instance read: false when another
 * instance (or an earlier call) told it meanwhile.
 */
export async function claimReport({ db }: Store, form: string, read: AlertState, said: Said, now: number) {
  // Told it works: the failures counted so far are told too. Told it fails: they go on counting, for the recovery.
  const change =
    said === "working"
      ? { reported: said, reported_at: now, failures: 0, first_failure_at: null }
      : { reported: said, reported_at: now };
  const row = await db
    .insertInto("alert_states")
    .values({ form, ...change })
    .onConflict((conflict) =>
      conflict.column("form").doUpdateSet(change).where("alert_states.reported_at", "=", read.reported_at),
    )
    .returning("form")
    .executeTakeFirst();
  return row !== undefined;
}

/** Since when a form's receiver has been failing, or null while it delivers. */
export async function failingSinceOf({ db }: Store, form: string) {
  const row = await db.selectFrom("receivers").select("failing_since").where("form", "=", form).executeTakeFirst();
  return numberOrNull(row?.failing_since ?? null);
}

/** The forms whose receiver is failing now (its last attempt failed, no success since), as every instance sees them. */
export async function failingReceivers({ db }: Store) {
  const rows = await db
    .selectFrom("receivers")
    .select(["form", "failing_since"])
    .where("failing_since", "is not", null)
    .execute();
  return rows.map((row) => ({ form: row.form, since: Number(row.failing_since) }));
}

/** Every form whose receiver ever failed: what a review looks at. */
export async function formsWithReceivers({ db }: Store) {
  const rows = await db.selectFrom("receivers").select("form").execute();
  return rows.map((row) => row.form);
}

/**
 * Marks a form's receiver failing, unless it is already. A failure that
 * starts an outage is counted for the next alert's summary, and its dead
 * leads will be told of whatever an earlier outage's were.
 */
export async function markFailing(store: Store, form: string, now: number) {
  const { db } = store;
  const started = await db
    .insertInto("receivers")
    .values({ form, failing_since: now })
    .onConflict((conflict) =>
      conflict.column("form").doUpdateSet({ failing_since: now }).where("receivers.failing_since", "is", null),
    )
    .returning("failing_since")
    .executeTakeFirst();
  if (!started) return;
  await db
    .insertInto("alert_states")
    .values({ form, failures: 1, first_failure_at: now })
    .onConflict((conflict) =>
      conflict.column("form").doUpdateSet((eb) => ({
        failures: eb("alert_states.failures", "+", 1),
        first_failure_at: eb.fn.coalesce("alert_states.first_failure_at", eb.val(now)),
        working_since: null,
        working_how: null,
      })),
    )
    .execute();
  await rearmAlert(store, "dead", form);
}

/**
 * Marks a form's receiver working again, if it was failing since `since`:
 * by a delivery, or because nothing of its form is waiting any more.
 */
export async function stopFailing(store: Store, form: string, since: number, how: "delivered" | "idle", now: number) {
  const { numUpdatedRows } = await store.db
    .updateTable("receivers")
    .set({ failing_since: null })
    .where("form", "=", form)
    .where("failing_since", "=", since)
    .executeTakeFirst();
  if (numUpdatedRows > 0n) await changeAlertState(store, form, { working_since: now, working_how: how });
}
