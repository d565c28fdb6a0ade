import "server-only";
import { alertOnOutcomes } from "@/server/alerts/alerts";
import { database } from "@/server/db/connect";
import { readEnv, type ServerEnv } from "@/server/env";
import { storeAnswered, storeFailed } from "@/server/leads/lead-store";
import { redeliveryPass, type PassOptions, type PassSummary } from "@/server/leads/pass";
import { logEvent } from "@/server/log";
import { processWide } from "@/server/process-wide";
import { applyRetention } from "./retention";

/**
 * A pass as the schedule runs it, for the timer, the cron route and the
 * operator's command: retention first (at most every ten minutes), then the
 * leads that are due, within what is left of the budget. The alerts hear
 * what it settles.
 */
export async function scheduledPass(env: ServerEnv = readEnv(), options: PassOptions = {}): Promise<PassSummary> {
  alertOnOutcomes();
  const { budgetMs = env.REDELIVERY_PASS_BUDGET_MS, clock = Date.now } = options;
  const began = clock();
  await applyRetention(await database(env), env);
  return redeliveryPass(env, { ...options, budgetMs: budgetMs - (clock() - began) });
}

const worked = (summary: PassSummary) =>
  summary.delivered + summary.pending + summary.dead + summary.held + summary.unreadable > 0;

// Process-wide: one timer per server, whichever bundle starts it.
const timer = processWide("redelivery", () => ({ interval: undefined as NodeJS.Timeout | undefined, running: false }));

/**
 * What the timer runs each REDELIVERY_POLL_MS: a pass, logged only when it
 * did something, unless the last one is still running. Resolves to whether
 * it ran one; a pass that fails is logged once per outage (lead_store_failed).
 */
export async function redeliveryTick() {
  if (timer.running) return false;
  timer.running = true;
  const began = Date.now();
  try {
    const summary = await scheduledPass();
    storeAnswered();
    if (worked(summary) || summary.budgetSpent) {
      logEvent("info", { event: "redelivery_pass", via: "timer", ...summary, durationMs: Date.now() - began });
    }
  } catch (error) {
    storeFailed(error, { during: "redelivery_pass" });
  } finally {
    timer.running = false;
  }
  return true;
}

/** Runs redeliveryTick every REDELIVERY_POLL_MS for as long as the server lives; started once from instrumentation.ts. */
export function startRedelivery(env: ServerEnv = readEnv()) {
  if (timer.interval) return;
  timer.interval = setInterval(() => void redeliveryTick(), env.REDELIVERY_POLL_MS);
  timer.interval.unref();
}

/** Stops the timer startRedelivery started (a server shutting down, a test). */
export function stopRedelivery() {
  clearInterval(timer.interval);
  timer.interval = undefined;
}
