import "server-only";
import { forgetOldConsents } from "@/server/consent/consent-store";
import { database, type Store } from "@/server/db/connect";
import { readEnv, readWebhook, type ServerEnv } from "@/server/env";
import { formNames } from "@/lib/forms";
import { logEvent } from "@/server/log";
import {
  CLAIM_MARGIN_MS,
  claimById,
  claimNext,
  forgetDeliveredPayloads,
  newClaim,
  storeAnswered,
  storeFailed,
  type Selection,
} from "./lead-store";
import { sendClaimed, type Sender, type Sent } from "./send";

export type PassSummary = Record<Sent["state"], number> & {
  /** Forms whose receiver failed too often in a row: not called again in this pass. */
  paused: string[];
  /** The pass stopped starting attempts because its time budget was spent. */
  budgetSpent: boolean;
};

// Failures in a row to one receiver after which a pass leaves it alone: its
// leads keep their place and wait for the next pass.
export const PAUSE_AFTER_FAILURES = 3;
// Retention runs with a pass at most this often.
const RETENTION_EVERY_MS = 10 * 60_000;

export type PassOptions = {
  sender?: Sender;
  /** Which leads: by default the pending ones due now, and held ones whose form has a URL again. */
  selection?: (now: number) => Selection;
  /** One lead by its webhook-id, whatever its schedule says. */
  id?: string;
  budgetMs?: number;
  /** Milliseconds, for the budget. */
  clock?: () => number;
};

const formsWithUrl = () => formNames.filter((form) => readWebhook(form).url);
export const dueNow = (now: number): Selection => ({ pendingDueBy: now, heldForms: formsWithUrl() });

const shared = globalThis as typeof globalThis & { lastRetentionRun?: number };

/**
 * Retention, at most every ten minutes per process: delivered leads lose
 * their payload after LEAD_RETENTION_DAYS, consent records and revocations go
 * after CONSENT_RETENTION_DAYS.
 */
async function applyRetention(store: Store, env: ServerEnv, now: number) {
  if (now - (shared.lastRetentionRun ?? 0) < RETENTION_EVERY_MS) return;
  shared.lastRetentionRun = now;
  const forgotten = await forgetDeliveredPayloads(store, now - env.LEAD_RETENTION_DAYS * 86_400_000);
  if (forgotten)
    logEvent("info", { event: "lead_payloads_forgotten", leads: forgotten, retentionDays: env.LEAD_RETENTION_DAYS });
  const consents = await forgetOldConsents(store, now - env.CONSENT_RETENTION_DAYS * 86_400_000);
  if (consents.consents || consents.revocations)
    logEvent("info", { event: "consents_forgotten", ...consents, retentionDays: env.CONSENT_RETENTION_DAYS });
}

/**
 * Sends what is due, REDELIVERY_CONCURRENCY leads at a time, each claimed
 * first so that no other pass, instance or visitor sends it too. It starts
 * no attempt once `budgetMs` is spent, and stops calling a receiver that
 * failed PAUSE_AFTER_FAILURES times in a row. Run by every server on a timer,
 * by the cron route, and by the operator's command.
 */
export async function redeliveryPass(env: ServerEnv = readEnv(), options: PassOptions = {}): Promise<PassSummary> {
  const { sender = "pass", selection = dueNow, budgetMs = env.REDELIVERY_PASS_BUDGET_MS, clock = Date.now } = options;
  const store = await database(env);
  const began = clock();
  await applyRetention(store, env, Date.now());

  const summary: PassSummary = {
    delivered: 0,
    pending: 0,
    dead: 0,
    held: 0,
    unreadable: 0,
    paused: [],
    budgetSpent: false,
  };
  const failuresInARow = new Map<string, number>();
  const sent: string[] = [];
  const claimMs = env.WEBHOOK_ATTEMPT_TIMEOUT_MS + CLAIM_MARGIN_MS;
  let byIdLeft = options.id !== undefined;

  const next = async () => {
    const claim = newClaim(claimMs);
    if (options.id !== undefined) {
      if (!byIdLeft) return undefined;
      byIdLeft = false;
      const row = await claimById(store, options.id, claim);
      return row && { row, claim };
    }
    const row = await claimNext(store, claim, { ...selection(Date.now()), skipForms: summary.paused, skipIds: sent });
    if (row) sent.push(row.id);
    return row && { row, claim };
  };

  const worker = async () => {
    for (;;) {
      if (clock() - began >= budgetMs) {
        summary.budgetSpent = true;
        return;
      }
      const claimed = await next();
      if (!claimed) return;
      const { state, delivery } = await sendClaimed(store, claimed.row, claimed.claim, env, sender);
      summary[state] += 1;
      if (delivery.via !== "webhook" || state === "unreadable") continue;
      const failures = delivery.ok ? 0 : (failuresInARow.get(claimed.row.form) ?? 0) + 1;
      failuresInARow.set(claimed.row.form, failures);
      if (failures >= PAUSE_AFTER_FAILURES && !summary.paused.includes(claimed.row.form)) {
        summary.paused.push(claimed.row.form);
        logEvent("warn", { event: "receiver_paused", form: claimed.row.form, failuresInARow: failures });
      }
    }
  };
  await Promise.all(Array.from({ length: env.REDELIVERY_CONCURRENCY }, worker));
  return summary;
}

const worked = (summary: PassSummary) =>
  summary.delivered + summary.pending + summary.dead + summary.held + summary.unreadable > 0;

const timer = globalThis as typeof globalThis & { redeliveryTimer?: NodeJS.Timeout; redeliveryRunning?: boolean };

/**
 * What the timer runs each REDELIVERY_POLL_MS: a pass, logged only when it
 * did something, unless the last one is still running. Resolves to whether
 * it ran one; a pass that fails is logged once per outage (lead_store_failed).
 */
export async function redeliveryTick() {
  if (timer.redeliveryRunning) return false;
  timer.redeliveryRunning = true;
  const began = Date.now();
  try {
    const summary = await redeliveryPass();
    storeAnswered();
    if (worked(summary) || summary.budgetSpent) {
      logEvent("info", { event: "redelivery_pass", via: "timer", ...summary, durationMs: Date.now() - began });
    }
  } catch (error) {
    storeFailed(error, { during: "redelivery_pass" });
  } finally {
    timer.redeliveryRunning = false;
  }
  return true;
}

/** Runs redeliveryTick every REDELIVERY_POLL_MS for as long as the server lives; started once from instrumentation.ts. */
export function startRedelivery(env: ServerEnv = readEnv()) {
  if (timer.redeliveryTimer) return;
  timer.redeliveryTimer = setInterval(() => void redeliveryTick(), env.REDELIVERY_POLL_MS);
  timer.redeliveryTimer.unref();
}

/** Stops the timer startRedelivery started (a server shutting down, a test). */
export function stopRedelivery() {
  clearInterval(timer.redeliveryTimer);
  timer.redeliveryTimer = undefined;
}
