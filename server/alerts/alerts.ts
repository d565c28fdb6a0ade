import "server-only";
import { randomUUID } from "node:crypto";
import type { Store } from "@/server/db/connect";
import type { ServerEnv } from "@/server/env";
import { readEnv, readWebhook } from "@/server/env";
import { logEvent, messageOf } from "@/server/log";
import { listenToStore, openLeadCounts, type StoreChange } from "@/server/leads/lead-store";
import { listenToOutcomes, type Outcome } from "@/server/leads/outcomes";
import { processWide } from "@/server/process-wide";
import { postJson } from "@/server/webhooks/post-json";
import { signatureHeaders } from "@/server/webhooks/signing";

export type AlertKind = "failing" | "dead" | "held" | "recovered" | "database_down" | "database_up";

const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

function duration(ms: number) {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}

/** Takes the right to send one alert of a kind for a form now, in one statement: false when one went out within the interval, from any instance. */
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

type Said = "failing" | "working";

/** What the channel last said of a form's receiver, and what happened since (alert_states). */
type AlertState = {
  reported: Said | null;
  reported_at: number;
  failures: number;
  first_failure_at: number | null;
  working_since: number | null;
  working_how: "delivered" | "idle" | null;
};
const unsaid: AlertState = {
  reported: null,
  reported_at: 0,
  failures: 0,
  first_failure_at: null,
  working_since: null,
  working_how: null,
};

async function alertStateOf({ db }: Store, form: string): Promise<AlertState> {
  const row = await db.selectFrom("alert_states").selectAll().where("form", "=", form).executeTakeFirst();
  return row
    ? {
        ...row,
        reported_at: Number(row.reported_at),
        failures: Number(row.failures),
        first_failure_at: row.first_failure_at === null ? null : Number(row.first_failure_at),
        working_since: row.working_since === null ? null : Number(row.working_since),
      }
    : unsaid;
}

/** Changes a form's alert state, making its row first. */
async function changeAlertState({ db }: Store, form: string, change: Partial<AlertState>) {
  await db
    .insertInto("alert_states")
    .values({ form, ...change })
    .onConflict((conflict) => conflict.column("form").doUpdateSet(change))
    .execute();
}

/** Since when a form's receiver has been failing, or null while it delivers. */
async function failingSinceOf({ db }: Store, form: string) {
  const row = await db.selectFrom("receivers").select("failing_since").where("form", "=", form).executeTakeFirst();
  return row?.failing_since === null || row?.failing_since === undefined ? null : Number(row.failing_since);
}

/**
 * Marks a form's receiver failing, unless it is already. A failure that
 * starts an outage is counted for the next alert's summary, and its dead
 * leads will be told of whatever an earlier outage's were.
 */
async function markFailing(store: Store, form: string, now: number) {
  const { db } = store;
  const started = await db
    .insertInto("receivers")
    .values({ form, failing_since: now })
    .onConflict((conflict) =>
      conflict.column("form").doUpdateSet({ failing_since: now }).where("receivers.failing_since", "is", null),
    )
    .returning("failing_since")
    .executeTakeFirst();
  if (started) {
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
    await rearm(store, "dead", form);
  }
}

/**
 * Marks a form's receiver working again, if it was failing since `since`:
 * by a delivery, or because nothing of its form is waiting any more.
 */
async function stopFailing(store: Store, form: string, since: number, how: "delivered" | "idle", now: number) {
  const { numUpdatedRows } = await store.db
    .updateTable("receivers")
    .set({ failing_since: null })
    .where("form", "=", form)
    .where("failing_since", "=", since)
    .executeTakeFirst();
  if (numUpdatedRows > 0n) await changeAlertState(store, form, { working_since: now, working_how: how });
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

/** Lets the next alert of a kind go out at once: each outage's dead leads are news, whatever an earlier one's were. */
async function rearm({ db }: Store, kind: AlertKind, form: string) {
  await db.updateTable("alerts").set({ last_sent_at: 0 }).where("kind", "=", kind).where("form", "=", form).execute();
}

/** How many of a form's leads are in each open state, and the oldest one's time. */
async function leadsOf(store: Store, form: string) {
  const counts = await openLeadCounts(store, form);
  return (state: "pending" | "dead" | "held") =>
    counts.find((row) => row.state === state) ?? { count: 0, oldest: undefined };
}

type Message = { text: string; since: number; leads: number; command: string };

/** "It failed 8 times in 21 min, working in between." when the receiver flapped since the last alert. */
function flaps(state: AlertState, now: number) {
  if (state.failures < 2 || state.first_failure_at === null) return "";
  return ` It failed ${state.failures} times in ${duration(now - state.first_failure_at)} since ${utc(state.first_failure_at)}, working in between.`;
}

/** The words of each alert: what happened, for which form, since when, how many leads, what to run. Never a lead's values. */
async function alertMessage(
  store: Store,
  kind: AlertKind,
  form: string,
  since: number,
  now: number,
  state: AlertState = unsaid,
): Promise<Message> {
  const leadsIn = await leadsOf(store, form);
  if (kind === "failing") {
    const { count } = leadsIn("pending");
    const command = "npm run leads";
    return {
      since,
      leads: count,
      command,
      text: `Sous: ${form} deliveries are failing since ${utc(since)} (${duration(now - since)}). ${plural(count, "lead")} waiting for redelivery on schedule.${flaps(state, now)} Check the workflow; see them with \`${command}\`.`,
    };
  }
  if (kind === "dead") {
    const { count, oldest } = leadsIn("dead");
    const command = "npm run leads -- retry --dead";
    return {
      since: oldest ?? since,
      leads: count,
      command,
      text: `Sous: ${plural(count, `dead ${form} lead`)}, the oldest from ${utc(oldest ?? since)}: their redelivery schedule ran out. Fix the workflow, then run \`${command}\`.`,
    };
  }
  if (kind === "held") {
    const { count, oldest } = leadsIn("held");
    const variable = readWebhook(form).urlVariable;
    const command = "npm run leads";
    return {
      since: oldest ?? since,
      leads: count,
      command,
      text: `Sous: ${plural(count, `${form} lead`)} held since ${utc(oldest ?? since)}: ${variable} is not set. Set it and restart; the next pass sends them. See them with \`${command}\`.`,
    };
  }
  const [pending, dead] = [leadsIn("pending"), leadsIn("dead")];
  const command = dead.count ? "npm run leads -- retry --dead" : "npm run leads";
  const left = dead.count
    ? ` ${plural(dead.count, "dead lead")} ${dead.count === 1 ? "needs" : "need"} \`${command}\`.`
    : "";
  const failedFrom = state.first_failure_at ?? since;
  const working = state.working_since ?? now;
  if (state.working_how === "idle") {
    return {
      since: failedFrom,
      leads: pending.count,
      command,
      text: `Sous: ${form}: nothing waits for redelivery any more (failing since ${utc(failedFrom)}; no delivery has succeeded since, the last waiting lead was dropped or sent elsewhere). The next lead will show whether the workflow works.`,
    };
  }
  const how =
    state.failures > 1
      ? `after failing ${state.failures} times in ${duration(working - failedFrom)} since ${utc(failedFrom)}, working since ${utc(working)}`
      : `after failing for ${duration(working - failedFrom)} since ${utc(failedFrom)}`;
  return {
    since: failedFrom,
    leads: pending.count,
    command,
    text: `Sous: ${form} deliveries work again, ${how}. ${plural(pending.count, "lead")} still waiting will be redelivered on schedule.${left}`,
  };
}

// Process-wide: an alert the chat refused is tried again by a pass's review a minute later at the soonest, not every poll.
const refused = processWide("alert-refusals", () => new Map<string, number>());
const RETRY_REFUSED_MS = 60_000;

/** Posts one alert; false when the chat webhook did not take it (logged). */
async function post(kind: AlertKind, form: string, message: Message, env: ServerEnv, now: number) {
  const body = JSON.stringify({
    text: message.text,
    kind,
    form,
    since: new Date(message.since).toISOString(),
    leads: message.leads,
    command: message.command,
  });
  const headers = env.ALERT_WEBHOOK_SECRET
    ? signatureHeaders(`alert_${randomUUID()}`, body, env.ALERT_WEBHOOK_SECRET)
    : {};
  const result = await postJson(env.ALERT_WEBHOOK_URL!, body, headers, env.WEBHOOK_ATTEMPT_TIMEOUT_MS);
  if (result.ok) {
    refused.delete(`${kind} ${form}`);
    logEvent("info", { event: "alert_sent", kind, form, leads: message.leads });
    return true;
  }
  refused.set(`${kind} ${form}`, now);
  logEvent("error", {
    event: "alert_failed",
    kind,
    form,
    reason: result.reason,
    ...("status" in result ? { status: result.status } : {}),
  });
  return false;
}

/** An alert of a kind that has its own interval (dead, held): at most one per form per interval, across instances. */
async function send(store: Store, kind: AlertKind, form: string, since: number, env: ServerEnv, now: number) {
  if (!(await claimAlert(store, kind, form, now, env.ALERT_MIN_INTERVAL_MINUTES * 60_000))) return;
  const message = await alertMessage(store, kind, form, since, now);
  if (await post(kind, form, message, env, now)) return;
  // Not sent: the next event of this kind may try again, instead of an interval of silence.
  await store.db
    .updateTable("alerts")
    .set({ last_sent_at: 0 })
    .where("kind", "=", kind)
    .where("form", "=", form)
    .where("last_sent_at", "=", now)
    .execute();
}

/**
 * Takes the right to tell the channel `said` about a form's receiver now, in
 * one statement, from the state this instance read: false when another
 * instance (or an earlier call) told it meanwhile.
 */
async function claimReport({ db }: Store, form: string, read: AlertState, said: Said, now: number) {
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

/**
 * Says what a form's receiver does when the channel's last word is no longer
 * true, calmly. A receiver whose last attempt failed, with leads of its form
 * still waiting, is failing; otherwise it works (a failing receiver whose
 * last waiting lead was dropped is cleared here, for /api/health too).
 *
 * - The first change after an interval of quiet (ALERT_MIN_INTERVAL_MINUTES
 *   since the last failing or recovered alert) is said at once.
 * - Within the interval, a change is said once it has lasted
 *   ALERT_GRACE_MINUTES: a flap shorter than that says nothing, and the
 *   next alert counts the flaps ("failed 8 times in 21 min").
 * - While it goes on failing, a reminder each interval.
 *
 * Run on each settled lead and by every pass (each REDELIVERY_POLL_MS, or
 * each cron run), which is what tells of a state that lasted its grace.
 */
async function review(store: Store, form: string, env: ServerEnv, now: number, { byTimer = false } = {}) {
  const failingSince = await failingSinceOf(store, form);
  let failing = failingSince !== null;
  if (failing) {
    const leadsIn = await leadsOf(store, form);
    if (leadsIn("pending").count + leadsIn("dead").count === 0) {
      await stopFailing(store, form, failingSince!, "idle", now);
      failing = false;
    }
  }
  if (!env.ALERT_WEBHOOK_URL) return;

  const state = await alertStateOf(store, form);
  const said = state.reported ?? "working";
  const actual: Said = failing ? "failing" : "working";
  const intervalMs = env.ALERT_MIN_INTERVAL_MINUTES * 60_000;
  const quiet = now - state.reported_at >= intervalMs;
  if (said === actual && !(failing && quiet)) return;
  if (said !== actual && !quiet) {
    const lasted = now - (failing ? failingSince! : (state.working_since ?? now));
    if (lasted < env.ALERT_GRACE_MINUTES * 60_000) return;
  }
  const kind: AlertKind = failing ? "failing" : "recovered";
  // A timer's review tries an alert the chat refused again a minute later at the soonest; a new lead's, at once.
  const refusedAt = refused.get(`${kind} ${form}`);
  if (byTimer && refusedAt !== undefined && now >= refusedAt && now - refusedAt < RETRY_REFUSED_MS) return;
  if (!(await claimReport(store, form, state, actual, now))) return;
  const message = await alertMessage(store, kind, form, failing ? failingSince! : now, now, state);
  if (await post(kind, form, message, env, now)) return;
  // Not told: the channel's last word is still the one before, with what happened since.
  await changeAlertState(store, form, {
    reported: state.reported,
    reported_at: state.reported_at,
    failures: state.failures,
    first_failure_at: state.first_failure_at,
  });
}

/**
 * What a settled lead means for the operator. The receiver's state is kept
 * whatever the settings (/api/health reads it); with ALERT_WEBHOOK_URL set,
 * alerts go out: a receiver that starts (or goes on) failing and one that
 * works again, as review() decides; a lead that goes dead (each outage's at
 * least once); a lead held for want of a URL. The caller does not wait: an
 * alert that fails is logged and delays no one.
 */
async function alertOn(store: Store, form: string, outcome: Outcome, env: ServerEnv, now: number) {
  try {
    if (outcome === "delivered") {
      const since = await failingSinceOf(store, form);
      if (since !== null) await stopFailing(store, form, since, "delivered", now);
    } else if (outcome === "held") {
      if (env.ALERT_WEBHOOK_URL) await send(store, "held", form, now, env, now);
      return;
    } else {
      await markFailing(store, form, now);
    }
    await review(store, form, env, now);
    if (outcome === "dead" && env.ALERT_WEBHOOK_URL) await send(store, "dead", form, now, env, now);
  } catch (error) {
    logEvent("error", { event: "alert_failed", kind: outcome, form, message: messageOf(error) });
  }
}

/**
 * Reviews every form's receiver (see review()): what a pass runs, so a state
 * that lasted its grace period is told, and a receiver with nothing left
 * waiting is cleared, without waiting for a lead.
 */
export async function reviewReceivers(store: Store, env: ServerEnv, now = Date.now()) {
  const forms = await store.db.selectFrom("receivers").select("form").execute();
  for (const { form } of forms) {
    try {
      await review(store, form, env, now, { byTimer: true });
    } catch (error) {
      logEvent("error", { event: "alert_failed", kind: "review", form, message: messageOf(error) });
    }
  }
}

// Process-wide: an alert started in one bundle is waited for by another (the action's after(), a command's exit).
const inFlight = processWide("alerts", () => new Set<Promise<void>>());

/** Starts what alertOn does for a settled lead and returns at once: no sender waits for an alert. */
export function noteOutcome(store: Store, form: string, outcome: Outcome, env: ServerEnv, now = Date.now()) {
  const work = alertOn(store, form, outcome, env, now).finally(() => inFlight.delete(work));
  inFlight.add(work);
}

/** Resolves once the alerts started so far are sent or given up: for tests and for a server shutting down. */
export async function alertsSettled() {
  await Promise.all(inFlight);
}

/**
 * Makes the operator hear of every settled lead from now on: each entry that
 * may send a lead calls it (start-up, the action, the cron route, the leads
 * command). Calling it again changes nothing.
 */
export function alertOnOutcomes() {
  listenToOutcomes("alerts", noteOutcome);
  listenToStore("alerts", noteStoreChange);
}

/**
 * A database outage, as this process saw it: one alert when it begins and
 * one when it ends. Posted without the database (no claim across instances:
 * each instance that sees the outage tells of it once), and never waited for.
 */
export function noteStoreChange(change: StoreChange, env?: ServerEnv) {
  const work = (async () => {
    const settings = env ?? readEnv();
    if (!settings.ALERT_WEBHOOK_URL) return;
    const where = settings.DATABASE_URL ? "Postgres (DATABASE_URL)" : "the SQLite file in DATA_DIR";
    const message: Message =
      change.state === "down"
        ? {
            since: change.since,
            leads: 0,
            command: "npm run db:migrate",
            text: `Sous: the database does not answer since ${utc(change.since)}: sign-ups are refused, and contact requests go out once with no copy kept for a redelivery. Check ${where}; \`npm run db:migrate\` says whether it answers.`,
          }
        : {
            since: change.since,
            leads: 0,
            command: "npm run leads",
            text: `Sous: the database answers again, after ${duration(change.now - change.since)} since ${utc(change.since)}. Sign-ups are taken again; see what waits with \`npm run leads\`.`,
          };
    await post(change.state === "down" ? "database_down" : "database_up", "all", message, settings, Date.now());
  })().catch((error: unknown) =>
    logEvent("error", { event: "alert_failed", kind: `database_${change.state}`, message: messageOf(error) }),
  );
  const tracked = work.finally(() => inFlight.delete(tracked));
  inFlight.add(tracked);
}
