import "server-only";
import { database } from "@/server/db/connect";
import { type ServerEnv } from "@/server/env";
import { readWebhook } from "@/server/webhook-settings";
import { formNames } from "@/lib/forms";
import { logEvent } from "@/server/log";
import { CLAIM_MARGIN_MS, claimById, claimNext, newClaim, type Selection } from "./lead-store";
import type { Listener } from "./outcomes";
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

export type PassOptions = {
  /** Who hears each lead's outcome and the store's outages: the entry point names it. */
  listener: Listener;
  sender?: Sender;
  /** Which leads: by default the pending ones due now, and held ones whose form has a URL again. */
  selection?: (now: number) => Selection;
  /** One lead by its webhook-id, whatever its schedule says. */
  id?: string;
  budgetMs?: number;
  /** True once the server is stopping: the pass claims nothing more, and finishes the attempts it started. */
  stopping?: () => boolean;
};

const formsWithUrl = () => formNames.filter((form) => readWebhook(form).url);
export const dueNow = (now: number): Selection => ({ pendingDueBy: now, heldForms: formsWithUrl() });

/**
 * Sends what is due, REDELIVERY_CONCURRENCY leads at a time, each claimed
 * first so that no other pass, instance or visitor sends it too. It starts
 * no attempt once `budgetMs` is spent, and stops calling a receiver that
 * failed PAUSE_AFTER_FAILURES times in a row. Run by every server on a timer,
 * by the cron route, and by the operator's command (server/schedule).
 */
export async function redeliveryPass(env: ServerEnv, options: PassOptions): Promise<PassSummary> {
  const { listener, sender = "pass", selection = dueNow, budgetMs = env.REDELIVERY_PASS_BUDGET_MS } = options;
  const store = await database(env);
  const began = performance.now();

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
      if (performance.now() - began >= budgetMs) {
        summary.budgetSpent = true;
        return;
      }
      if (options.stopping?.()) return;
      const claimed = await next();
      if (!claimed) return;
      const { state, delivery } = await sendClaimed({ store, ...claimed, env, sender, listener });
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
