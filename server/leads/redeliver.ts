import "server-only";
import { readEnv, readWebhook, type ServerEnv } from "@/server/env";
import { logEvent, messageOf } from "@/server/log";
import { appendToOutbox } from "@/server/webhooks/outbox";
import { attemptOnce } from "@/server/webhooks/deliver";
import { failureOf } from "./failure";
import { leadFacts, pendingFacts, type Lead } from "./lead";
import type { LeadStore } from "./store";
import { leadStoreFor } from "./stores";

export type Outcome = "delivered" | "pending" | "dead" | "busy";
export type PassSummary = Record<Outcome, number>;

/** When the lead's next redelivery is due after `rounds` failed ones, or undefined when the schedule is spent. */
export function nextAttemptAfter(rounds: number, schedule: readonly number[], now: number) {
  const delay = schedule[rounds];
  return delay === undefined ? undefined : now + delay * 1000;
}

/**
 * One redelivery of one lead, by whoever holds its lease: signed afresh, with
 * its original webhook-id. Acknowledged, it is deleted; failed, it moves on in
 * the schedule, or is kept as dead once the schedule is spent.
 */
export async function redeliver(store: LeadStore, lead: Lead, env: ServerEnv): Promise<Outcome> {
  const leaseMs = env.WEBHOOK_ATTEMPT_TIMEOUT_MS + 5_000;
  if (!(await store.lease(lead.key, leaseMs))) return "busy";
  try {
    // Read again under the lease: another instance may have settled it meanwhile.
    const current = await store.get(lead.key);
    if (!current) return "delivered";
    const webhook = readWebhook(current.form);
    if (!webhook.url) {
      // The operator took the webhook away: the outbox file is where leads go now.
      await appendToOutbox(env.OUTBOX_DIR, current.form, { id: current.id, receivedAt: new Date(current.createdAt).toISOString(), payload: current.payload });
      await store.remove(current.key);
      logEvent("info", { event: "lead_redelivered", ...leadFacts(current), via: "outbox" });
      return "delivered";
    }

    const result = await attemptOnce({ ...webhook, url: webhook.url }, current.id, JSON.stringify(current.payload), env.WEBHOOK_ATTEMPT_TIMEOUT_MS);
    const attempted = { ...current, attempts: current.attempts + 1 };
    if (result.ok) {
      await store.remove(current.key);
      logEvent("info", { event: "lead_redelivered", ...leadFacts(attempted), status: result.status });
      return "delivered";
    }

    const rounds = current.rounds + 1;
    const next = nextAttemptAfter(rounds, env.REDELIVERY_SCHEDULE_SECONDS, Date.now());
    const failed: Lead = { ...attempted, rounds, lastFailure: failureOf(result), ...(next === undefined ? { state: "dead" } : { nextAttemptAt: next }) };
    await store.update(failed);
    if (next === undefined) {
      logEvent("error", { event: "lead_dead", ...leadFacts(failed), reason: failed.lastFailure });
      return "dead";
    }
    logEvent("warn", pendingFacts(failed));
    return "pending";
  } finally {
    await store.release(lead.key);
  }
}

/**
 * Redelivers what is due now (or what `pick` chooses), one lead after another.
 * Run by every server on a timer, by the cron route, and by the operator's
 * command; leases keep two of them off the same lead.
 */
export async function redeliveryPass(
  env: ServerEnv = readEnv(),
  pick: (lead: Lead, now: number) => boolean = (lead, now) => lead.state === "pending" && lead.nextAttemptAt <= now,
): Promise<PassSummary> {
  const store = leadStoreFor(env);
  const summary: PassSummary = { delivered: 0, pending: 0, dead: 0, busy: 0 };
  const now = Date.now();
  for (const lead of await store.list()) {
    if (!pick(lead, now)) continue;
    summary[await redeliver(store, lead, env)] += 1;
  }
  return summary;
}

const shared = globalThis as typeof globalThis & { redeliveryTimer?: NodeJS.Timeout };

/** Runs a pass every REDELIVERY_POLL_MS for as long as the server lives; started once from instrumentation.ts. */
export function startRedelivery(env: ServerEnv = readEnv()) {
  if (shared.redeliveryTimer) return;
  let running = false;
  shared.redeliveryTimer = setInterval(() => {
    if (running) return;
    running = true;
    redeliveryPass()
      .catch((error: unknown) =>
        logEvent("error", { event: "redelivery_failed", message: messageOf(error) }),
      )
      .finally(() => (running = false));
  }, env.REDELIVERY_POLL_MS);
  shared.redeliveryTimer.unref();
}
