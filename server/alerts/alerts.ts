import "server-only";
import { randomUUID } from "node:crypto";
import type { Store } from "@/server/db/connect";
import type { ServerEnv } from "@/server/env";
import { readWebhook } from "@/server/env";
import { logEvent, messageOf } from "@/server/log";
import { openLeadCounts } from "@/server/leads/lead-store";
import { listenToOutcomes, type Outcome } from "@/server/leads/outcomes";
import { processWide } from "@/server/process-wide";
import { postJson } from "@/server/webhooks/post-json";
import { signatureHeaders } from "@/server/webhooks/signing";

export type AlertKind = "failing" | "dead" | "held" | "recovered";

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

/**
 * Marks a form's receiver failing, unless it is already: since when it has
 * been failing, and whether this failure started the outage.
 */
async function markFailing({ db }: Store, form: string, now: number) {
  const started = await db
    .insertInto("receivers")
    .values({ form, failing_since: now })
    .onConflict((conflict) =>
      conflict.column("form").doUpdateSet({ failing_since: now }).where("receivers.failing_since", "is", null),
    )
    .returning("failing_since")
    .executeTakeFirst();
  // This failure started the outage: the row it wrote says since when, no need to read it back.
  if (started) return { since: started.failing_since ?? now, started: true };
  const row = await db.selectFrom("receivers").select("failing_since").where("form", "=", form).executeTakeFirst();
  return { since: row?.failing_since ?? now, started: false };
}

/** Marks a form's receiver delivering again; when it was failing, since when. */
async function stopFailing({ db }: Store, form: string) {
  const row = await db.selectFrom("receivers").select("failing_since").where("form", "=", form).executeTakeFirst();
  const since = row?.failing_since;
  if (since === null || since === undefined) return undefined;
  const { numUpdatedRows } = await db
    .updateTable("receivers")
    .set({ failing_since: null })
    .where("form", "=", form)
    .where("failing_since", "=", since)
    .executeTakeFirst();
  return numUpdatedRows > 0n ? since : undefined;
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

/**
 * Lets the next alert of a kind go out at once: a new outage after a
 * recovery is news, whatever the interval; the interval holds only between
 * repeats of one outage.
 */
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

/** The words of each alert: what happened, for which form, since when, how many leads, what to run. Never a lead's values. */
async function alertMessage(store: Store, kind: AlertKind, form: string, since: number, now: number): Promise<Message> {
  const leadsIn = await leadsOf(store, form);
  if (kind === "failing") {
    const { count } = leadsIn("pending");
    const command = "npm run leads";
    return {
      since,
      leads: count,
      command,
      text: `Sous: ${form} deliveries are failing since ${utc(since)} (${duration(now - since)}). ${plural(count, "lead")} waiting for redelivery on schedule. Check the workflow; see them with \`${command}\`.`,
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
  return {
    since,
    leads: pending.count,
    command,
    text: `Sous: ${form} deliveries work again, after failing for ${duration(now - since)} since ${utc(since)}. ${plural(pending.count, "lead")} still waiting will be redelivered on schedule.${left}`,
  };
}

async function send(store: Store, kind: AlertKind, form: string, since: number, env: ServerEnv, now: number) {
  const url = env.ALERT_WEBHOOK_URL!;
  if (!(await claimAlert(store, kind, form, now, env.ALERT_MIN_INTERVAL_MINUTES * 60_000))) return;
  const message = await alertMessage(store, kind, form, since, now);
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
  const result = await postJson(url, body, headers, env.WEBHOOK_ATTEMPT_TIMEOUT_MS);
  if (result.ok) return logEvent("info", { event: "alert_sent", kind, form, leads: message.leads });
  logEvent("error", {
    event: "alert_failed",
    kind,
    form,
    reason: result.reason,
    ...("status" in result ? { status: result.status } : {}),
  });
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
 * What a settled lead means for the operator. The receiver's state is kept
 * whatever the settings (/api/health reads it); with ALERT_WEBHOOK_URL set,
 * alerts go out: a receiver that starts (or goes on) failing, a lead that goes
 * dead, a lead held for want of a URL, a receiver that delivers again. Each
 * kind goes out at most once per form per ALERT_MIN_INTERVAL_MINUTES, across
 * instances, except that a recovery re-arms the failing alert and a new
 * outage the recovered one. The caller does not wait: an alert that fails
 * is logged and delays no one.
 */
async function alertOn(store: Store, form: string, outcome: Outcome, env: ServerEnv, now: number) {
  const alerting = Boolean(env.ALERT_WEBHOOK_URL);
  try {
    if (outcome === "delivered") {
      const since = await stopFailing(store, form);
      if (since === undefined) return;
      await rearm(store, "failing", form);
      if (alerting) await send(store, "recovered", form, since, env, now);
      return;
    }
    if (outcome === "held") {
      if (alerting) await send(store, "held", form, now, env, now);
      return;
    }
    const { since, started } = await markFailing(store, form, now);
    if (started) await rearm(store, "recovered", form);
    if (!alerting) return;
    // The first failure after a success, then a reminder each interval while failures go on: no silence during an outage.
    await send(store, "failing", form, since, env, now);
    if (outcome === "dead") await send(store, "dead", form, now, env, now);
  } catch (error) {
    logEvent("error", { event: "alert_failed", kind: outcome, form, message: messageOf(error) });
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
}
