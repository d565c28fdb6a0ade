import "server-only";
import { randomUUID } from "node:crypto";
import type { Store } from "@/server/db/connect";
import { INVITATIONS, readEnv, webhookVariables, type Receiver, type ServerEnv } from "@/server/env";
import { logEvent, messageOf } from "@/server/log";
import { openCounts, release } from "@/server/outbox/outbox-store";
import { processWide } from "@/server/process-wide";
import {
  alertStateOf,
  changeAlertState,
  reserveAlert,
  reserveReport,
  failingSinceOf,
  receiverFailure,
  formsWithReceivers,
  markFailing,
  rearmAlert,
  stopFailing,
  unsaid,
  type AlertKind,
  type AlertState,
  type Said,
} from "./alert-store";
import { postSigned } from "@/server/outbox/webhook";

/** What happened to a lead (or an invitation), as the sender that settled it saw it. */
export type Outcome = "delivered" | "pending" | "dead" | "held" | "over_budget";

/** A database outage as this process saw it begin (`down`) or end (`up`). */
export type StoreChange = { state: "down"; since: number } | { state: "up"; since: number; now: number };

/** A lead or an invitation settled: whose receiver, what became of it, and (failed) what the attempt was answered. */
export type Settled = { receiver: Receiver; outcome: Outcome; env: ServerEnv; failure?: string };

const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

function duration(ms: number) {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}

type Waiting = (state: "pending" | "dead" | "held" | "decision") => { count: number; oldest: number | undefined };

async function waitingOn(store: Store, receiver: string): Promise<Waiting> {
  const counts = (await openCounts(store, receiver)).get(receiver);
  return (state) => counts?.[state] ?? { count: 0, oldest: undefined };
}

function wordsOf(receiver: string) {
  if (receiver === INVITATIONS)
    return {
      item: "invitation",
      kind: "launch invitation",
      see: "npm run invite -- status",
      onceFixed:
        "Once it answers, the site finds out within REDELIVERY_PROBE_SECONDS (60 s) and sends them at INVITE_PER_MINUTE, within their hours.",
      retryDead: undefined,
    };
  return {
    item: "lead",
    kind: `${receiver} lead`,
    see: "npm run leads",
    onceFixed:
      "Once it answers, the site finds out within REDELIVERY_PROBE_SECONDS (60 s) and sends them; `npm run leads -- retry` sends them now.",
    retryDead: "npm run leads -- retry --dead",
  };
}

/** The workflows say why they refused ("status 503 twilio_refused 401"), and each reason has its one place to look. */
export function adviceFor(receiver: string, failure: string | null) {
  const variables = webhookVariables(receiver as Receiver);
  const [kind, status, reason, twilio] = (failure ?? "").split(" ");
  if (reason === "signature" || reason === "unsigned")
    return `The workflow refused the site's signature: ${variables.secrets} is not a secret the workflow checks.`;
  if (reason === "stale")
    return "The workflow found the signature's time more than 5 minutes off: check both servers' clocks.";
  if (reason === "twilio_refused" && (twilio === "401" || twilio === "403"))
    return "Twilio refused the account's credentials: check TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN in n8n's environment.";
  if (reason === "twilio_refused")
    return `Twilio refused the text${twilio ? ` (${twilio})` : ""}: see the account in Twilio's console.`;
  if (reason === "twilio_unreachable") return "n8n could not reach Twilio's API.";
  if (reason === "twilio_not_configured")
    return "n8n has no Twilio account: set TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM in its environment.";
  if (status === "404")
    return `The webhook answers 404: the workflow is not published, or ${variables.url} is not its production URL.`;
  if (status === "401" || status === "403")
    return `The webhook refused the site's credentials: check ${variables.auth} and ${variables.secrets}.`;
  if (kind === "unready") return "n8n was starting up and ran no workflow: the site sends again.";
  if (kind === "timeout" || kind === "network")
    return `The workflow did not answer (${kind}): check that n8n runs and that ${variables.url} reaches it.`;
  return "Check the workflow.";
}

const lastAnswerWords = (receiver: string, failure: string | null) =>
  failure ? ` The last answer: ${failure}. ${adviceFor(receiver, failure)}` : ` ${adviceFor(receiver, null)}`;

type Message = { text: string; since: number; leads: number; command: string };

function flaps(state: AlertState, now: number) {
  if (state.failures < 2 || state.first_failure_at === null) return "";
  return ` It failed ${state.failures} times in ${duration(now - state.first_failure_at)} since ${utc(state.first_failure_at)}, working in between.`;
}

type About = { kind: AlertKind; form: string; since: number; now: number; state?: AlertState };

async function alertMessage(store: Store, { kind, form, since, now, state = unsaid }: About): Promise<Message> {
  const leadsIn = await waitingOn(store, form);
  const words = wordsOf(form);
  if (kind === "failing") {
    const { count } = leadsIn("pending");
    const command = words.see;
    const failure = (await receiverFailure(store, form))?.lastFailure ?? null;
    return {
      since,
      leads: count,
      command,
      text: `Sous: ${form} deliveries are failing since ${utc(since)} (${duration(now - since)}).${lastAnswerWords(form, failure)} ${plural(count, words.item)} waiting for redelivery.${flaps(state, now)} ${words.onceFixed} See them with \`${command}\`.`,
    };
  }
  if (kind === "dead") {
    const { count, oldest } = leadsIn("dead");
    const command = words.retryDead ?? words.see;
    const then = words.retryDead ? `Fix the workflow, then run \`${command}\`.` : `See them with \`${command}\`.`;
    return {
      since: oldest ?? since,
      leads: count,
      command,
      text: `Sous: ${plural(count, `dead ${words.kind}`)}, the oldest from ${utc(oldest ?? since)}: their redelivery schedule ran out. ${then}`,
    };
  }
  if (kind === "held") {
    const { count, oldest } = leadsIn("held");
    const variable = webhookVariables(form as Receiver).url;
    const command = words.see;
    return {
      since: oldest ?? since,
      leads: count,
      command,
      text: `Sous: ${plural(count, words.kind)} held since ${utc(oldest ?? since)}: ${variable} is not set. Set it and restart; the next pass sends them. See them with \`${command}\`.`,
    };
  }
  if (kind === "over_budget") {
    const { count, oldest } = leadsIn("decision");
    const command = "/console/deliveries";
    return {
      since: oldest ?? since,
      leads: count,
      command,
      text: `Sous: the day's texts budget of the ${form} form is spent: ${plural(count, words.kind)} since ${utc(oldest ?? since)} wait for your decision, and none is texted until an owner releases it. Release or drop them at ${command} in the console.`,
    };
  }
  const [pending, dead] = [leadsIn("pending"), leadsIn("dead")];
  const command = dead.count && words.retryDead ? words.retryDead : words.see;
  const left =
    dead.count && words.retryDead
      ? ` ${plural(dead.count, `dead ${words.item}`)} ${dead.count === 1 ? "needs" : "need"} \`${command}\`.`
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
    text: `Sous: ${form} deliveries work again, ${how}. ${plural(pending.count, words.item)} still waiting: due now, sent by the next pass.${left}`,
  };
}

// Process-wide: an alert the chat refused is tried again a minute later at the soonest, not every poll.
const refused = processWide("alert-refusals", () => new Map<string, number>());
const RETRY_REFUSED_MS = 60_000;

/** False when the chat webhook did not take it (logged). */
async function post({
  kind,
  form,
  message,
  env,
  now,
}: {
  kind: AlertKind;
  form: string;
  message: Message;
  env: ServerEnv;
  now: number;
}) {
  const body = JSON.stringify({
    text: message.text,
    kind,
    form,
    since: new Date(message.since).toISOString(),
    leads: message.leads,
    command: message.command,
  });
  const result = await postSigned(
    { url: env.ALERT_WEBHOOK_URL!, secrets: env.ALERT_WEBHOOK_SECRET, auth: undefined },
    { webhookId: `alert_${randomUUID()}`, body, timeoutMs: env.WEBHOOK_ATTEMPT_TIMEOUT_MS },
  );
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

/** At most one per form per interval, across instances. */
async function sendAlert(
  store: Store,
  env: ServerEnv,
  { kind, form, now }: { kind: AlertKind; form: string; now: number },
) {
  if (!(await reserveAlert(store, { kind, form, now, intervalMs: env.ALERT_MIN_INTERVAL_MINUTES * 60_000 }))) return;
  const message = await alertMessage(store, { kind, form, since: now, now });
  if (await post({ kind, form, message, env, now })) return;
  // Not sent: the next event of this kind may try again, instead of an interval of silence.
  await rearmAlert(store, kind, form, now);
}

/**
 * Says calmly what a receiver does once the channel's last word is no longer true: the first change after a quiet
 * interval at once; within it, once the change lasted ALERT_GRACE_MINUTES (a shorter flap says nothing, the next alert
 * counts the flaps); a reminder each interval while it fails.
 */
async function review(
  store: Store,
  { form, env, now, byTimer = false }: { form: string; env: ServerEnv; now: number; byTimer?: boolean },
) {
  const failingSince = await failingSinceOf(store, form);
  let failing = failingSince !== null;
  if (failing) {
    const leadsIn = await waitingOn(store, form);
    // An invitation failed for good has no command that sends it again: it keeps no receiver failing.
    const dead = form === INVITATIONS ? 0 : leadsIn("dead").count;
    if (leadsIn("pending").count + dead === 0) {
      await stopFailing(store, { form, since: failingSince!, how: "idle", now });
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
  const refusedAt = refused.get(`${kind} ${form}`);
  if (byTimer && refusedAt !== undefined && now >= refusedAt && now - refusedAt < RETRY_REFUSED_MS) return;
  if (!(await reserveReport(store, { form, read: state, said: actual, now }))) return;
  const message = await alertMessage(store, { kind, form, since: failing ? failingSince! : now, now, state });
  if (await post({ kind, form, message, env, now })) return;
  // Not told: the channel's last word is still the one before, with what happened since.
  await changeAlertState(store, form, {
    reported: state.reported,
    reported_at: state.reported_at,
    failures: state.failures,
    first_failure_at: state.first_failure_at,
  });
}

/**
 * The receiver's state is kept whatever the settings (/api/health reads it); alerts go out with ALERT_WEBHOOK_URL. An
 * alert that fails is logged and delays no one.
 */
async function alertOn(store: Store, { receiver: form, outcome, env, failure }: Settled, now: number) {
  try {
    if (outcome === "delivered") {
      const since = await failingSinceOf(store, form);
      if (since !== null) {
        await stopFailing(store, { form, since, how: "delivered", now });
        // It answers again: what waits for a later round goes with the next pass, not hours from now.
        await release(store, form, now);
      }
    } else if (outcome === "held" || outcome === "over_budget") {
      if (env.ALERT_WEBHOOK_URL) await sendAlert(store, env, { kind: outcome, form, now });
      return;
    } else {
      await markFailing(store, form, now, failure ?? null);
    }
    await review(store, { form, env, now });
    if (outcome === "dead" && env.ALERT_WEBHOOK_URL) await sendAlert(store, env, { kind: "dead", form, now });
  } catch (error) {
    logEvent("error", { event: "alert_failed", kind: outcome, form, message: messageOf(error) });
  }
}

/** What every pass runs, so a state that lasted its grace is told without waiting for a lead. */
export async function reviewReceivers(store: Store, env: ServerEnv) {
  const now = Date.now();
  for (const form of await formsWithReceivers(store)) {
    try {
      await review(store, { form, env, now, byTimer: true });
    } catch (error) {
      logEvent("error", { event: "alert_failed", kind: "review", form, message: messageOf(error) });
    }
  }
}

// Process-wide: an alert started in one bundle is waited for by another (the action's after(), a command's exit).
const inFlight = processWide("alerts", () => new Set<Promise<void>>());

/** Returns at once: no sender waits for an alert. */
export function noteOutcome(store: Store, settled: Settled) {
  const work = alertOn(store, settled, Date.now()).finally(() => inFlight.delete(work));
  inFlight.add(work);
}

export async function alertsSettled() {
  await Promise.all(inFlight);
}

/** Posted without the database (each instance that sees the outage tells of it once), and never waited for. */
export function noteStoreChange(change: StoreChange) {
  const work = (async () => {
    const settings = readEnv();
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
    await post({
      kind: change.state === "down" ? "database_down" : "database_up",
      form: "all",
      message,
      env: settings,
      now: Date.now(),
    });
  })().catch((error: unknown) =>
    logEvent("error", { event: "alert_failed", kind: `database_${change.state}`, message: messageOf(error) }),
  );
  const tracked = work.finally(() => inFlight.delete(tracked));
  inFlight.add(tracked);
}

// Process-wide, so an outage is logged and told once, not once per bundle.
const shared = processWide("store-outage", () => ({ down: false, since: 0 }));

/**
 * The store failed (unreachable Postgres, a full disk, a read-only file):
 * what was being sent still goes out, and the operator hears of it once per
 * outage (the log, and an alert), not once per post.
 */
export function storeFailed(error: unknown, facts: object = {}) {
  if (shared.down) return;
  shared.down = true;
  shared.since = Date.now();
  logEvent("error", { event: "lead_store_failed", ...facts, message: messageOf(error) });
  noteStoreChange({ state: "down", since: shared.since });
}

/** The store answered: the next failure is a new outage. */
export function storeAnswered() {
  if (!shared.down) return;
  shared.down = false;
  logEvent("info", { event: "lead_store_recovered" });
  noteStoreChange({ state: "up", since: shared.since, now: Date.now() });
}
