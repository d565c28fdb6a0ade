import "server-only";
import type { Store } from "@/server/db/connect";
import type { Database } from "@/server/db/schema";

export const ownedTables = ["alerts", "receivers", "alert_states"] as const satisfies readonly (keyof Database)[];

export type AlertKind = "failing" | "dead" | "held" | "over_budget" | "recovered" | "database_down" | "database_up";

export type Said = "failing" | "working";

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

/** One statement: false when one went out within the interval, from any instance. */
export async function reserveAlert(
  { db }: Store,
  { kind, form, now, intervalMs }: { kind: AlertKind; form: string; now: number; intervalMs: number },
) {
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

/** Each outage's dead leads are news, whatever an earlier one's were. With `sentAt`, only the claim taken then is let go. */
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

export async function changeAlertState({ db }: Store, form: string, change: Partial<AlertState>) {
  await db
    .insertInto("alert_states")
    .values({ form, ...change })
    .onConflict((conflict) => conflict.column("form").doUpdateSet(change))
    .execute();
}

/** One statement, from the state this instance read: false when another instance told it meanwhile. */
export async function reserveReport(
  { db }: Store,
  { form, read, said, now }: { form: string; read: AlertState; said: Said; now: number },
) {
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

export async function failingSinceOf(store: Store, form: string) {
  return (await receiverFailure(store, form))?.since ?? null;
}

export type Failing = { form: string; since: number; lastFailure: string | null };

export async function receiverFailure({ db }: Store, form: string): Promise<Failing | undefined> {
  const row = await db
    .selectFrom("receivers")
    .select(["form", "failing_since", "last_failure"])
    .where("form", "=", form)
    .where("failing_since", "is not", null)
    .executeTakeFirst();
  return row && { form: row.form, since: Number(row.failing_since), lastFailure: row.last_failure };
}

export async function failingReceivers({ db }: Store): Promise<Failing[]> {
  const rows = await db
    .selectFrom("receivers")
    .select(["form", "failing_since", "last_failure"])
    .where("failing_since", "is not", null)
    .execute();
  return rows.map((row) => ({ form: row.form, since: Number(row.failing_since), lastFailure: row.last_failure }));
}

export async function formsWithReceivers({ db }: Store) {
  const rows = await db.selectFrom("receivers").select("form").execute();
  return rows.map((row) => row.form);
}

/** A failure that starts an outage is counted for the next alert's summary. */
export async function markFailing(store: Store, form: string, now: number, failure: string | null = null) {
  const { db } = store;
  const started = await db
    .insertInto("receivers")
    .values({ form, failing_since: now, last_failure: failure })
    .onConflict((conflict) =>
      conflict
        .column("form")
        .doUpdateSet({ failing_since: now, last_failure: failure })
        .where("receivers.failing_since", "is", null),
    )
    .returning("failing_since")
    .executeTakeFirst();
  if (!started) {
    await db.updateTable("receivers").set({ last_failure: failure }).where("form", "=", form).execute();
    return;
  }
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

/** By a delivery, or because nothing of its form waits any more. */
export async function stopFailing(
  store: Store,
  { form, since, how, now }: { form: string; since: number; how: "delivered" | "idle"; now: number },
) {
  const { numUpdatedRows } = await store.db
    .updateTable("receivers")
    .set({ failing_since: null, last_failure: null, probed_at: null })
    .where("form", "=", form)
    .where("failing_since", "=", since)
    .executeTakeFirst();
  if (numUpdatedRows > 0n) await changeAlertState(store, form, { working_since: now, working_how: how });
}

/** One statement: true for one instance once `intervalMs` has passed since it began failing or was last probed. */
export async function reserveProbe({ db }: Store, form: string, now: number, intervalMs: number) {
  const row = await db
    .updateTable("receivers")
    .set({ probed_at: now })
    .where("form", "=", form)
    .where("failing_since", "is not", null)
    .where((eb) => eb(eb.fn.coalesce("probed_at", "failing_since"), "<=", now - intervalMs))
    .returning("form")
    .executeTakeFirst();
  return row !== undefined;
}

export async function lastAlerts({ db }: Store, limit = 10) {
  const rows = await db.selectFrom("alerts").selectAll().orderBy("last_sent_at", "desc").limit(limit).execute();
  return rows.map((row) => ({ kind: row.kind, form: row.form, sentAt: Number(row.last_sent_at) }));
}
