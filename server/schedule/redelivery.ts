import "server-only";
import { operatorAlerts, reviewReceivers } from "@/server/alerts/alerts";
import { database } from "@/server/db/connect";
import { readEnv, type ServerEnv } from "@/server/env";
import { invitationPass, type InvitationSummary } from "@/server/invitations/invitation-pass";
import { storeAnswered, storeFailed } from "@/server/leads/lead-store";
import { redeliveryPass, type PassOptions, type PassSummary } from "@/server/leads/pass";
import { logEvent } from "@/server/log";
import { processWide } from "@/server/process-wide";
import { applyRetention } from "./retention";

export type ScheduledSummary = PassSummary & {
  /** The launch invitations it sent, skipped or left waiting; absent when the caller left them out. */
  invitations?: InvitationSummary;
};

/**
 * A pass as the schedule runs it, for the timer, the cron route and the
 * operator's command: retention first (at most every ten minutes), then the
 * leads that are due, within what is left of the budget, then a review of
 * each receiver's alert state (a change that lasted its grace period is told;
 * a receiver with nothing left waiting is cleared), then, unless
 * `invitations` is false, the launch invitations that are due, at their pace,
 * in what is left of the budget. The alerts hear what it settles.
 */
export async function scheduledPass(
  env: ServerEnv = readEnv(),
  options: Omit<PassOptions, "listener"> & { invitations?: boolean } = {},
): Promise<ScheduledSummary> {
  const { budgetMs = env.REDELIVERY_PASS_BUDGET_MS, invitations = true } = options;
  const began = performance.now();
  const left = () => budgetMs - (performance.now() - began);
  const store = await database(env);
  await applyRetention(store, env);
  const summary = await redeliveryPass(env, { ...options, budgetMs: left(), listener: operatorAlerts });
  // What the channel says of each receiver, now that this pass settled what it could.
  await reviewReceivers(store, env);
  if (!invitations) return summary;
  return {
    ...summary,
    invitations: await invitationPass(store, env, { budgetMs: left(), stopping: options.stopping }),
  };
}

const worked = ({ invitations, ...summary }: ScheduledSummary) =>
  summary.delivered + summary.pending + summary.dead + summary.held + summary.unreadable > 0 ||
  (invitations !== undefined &&
    invitations.texted +
      invitations.refused +
      invitations.skipped +
      invitations.waiting +
      invitations.failed +
      invitations.retrying >
      0);

// Process-wide: one timer per server, whichever bundle starts it.
const timer = processWide("redelivery", () => ({
  interval: undefined as NodeJS.Timeout | undefined,
  /** The pass under way, if any. */
  running: undefined as Promise<void> | undefined,
  /** Set once the server stops: a pass under way claims nothing more. */
  stopping: false,
}));

/**
 * What the timer runs each REDELIVERY_POLL_MS: a pass, logged only when it
 * did something, unless the last one is still running. Resolves to whether
 * it ran one; a pass that fails is logged once per outage (lead_store_failed).
 */
export async function redeliveryTick() {
  if (timer.running || timer.stopping) return false;
  const began = Date.now();
  const pass = async () => {
    try {
      const summary = await scheduledPass(readEnv(), { stopping: () => timer.stopping });
      storeAnswered(operatorAlerts);
      if (worked(summary) || summary.budgetSpent) {
        logEvent("info", { event: "redelivery_pass", via: "timer", ...summary, durationMs: Date.now() - began });
      }
    } catch (error) {
      storeFailed(operatorAlerts, error, { during: "redelivery_pass" });
    } finally {
      timer.running = undefined;
    }
  };
  await (timer.running = pass());
  return true;
}

/** Runs redeliveryTick every REDELIVERY_POLL_MS for as long as the server lives; started once from instrumentation.ts. */
export function startRedelivery(env: ServerEnv = readEnv()) {
  if (timer.interval) return;
  timer.stopping = false;
  timer.interval = setInterval(() => void redeliveryTick(), env.REDELIVERY_POLL_MS);
  timer.interval.unref();
}

/** Stops the timer startRedelivery started (a test): a pass under way goes on. */
export function stopRedelivery() {
  clearInterval(timer.interval);
  timer.interval = undefined;
}

/**
 * A server stopping: no pass starts, the one under way claims no more leads,
 * and this resolves once the attempts it started are answered (each within
 * WEBHOOK_ATTEMPT_TIMEOUT_MS) and recorded. A lead it did not get to keeps
 * its place for the next server.
 */
export async function finishRedelivery() {
  timer.stopping = true;
  stopRedelivery();
  await timer.running;
}
