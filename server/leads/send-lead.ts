import "server-only";
import type { ServerEnv } from "@/server/env";
import { readWebhook } from "@/server/env";
import type { FormName } from "@/server/forms/registry";
import { logEvent, messageOf } from "@/server/log";
import { deliver, newWebhookId, type Delivery } from "@/server/webhooks/deliver";
import { failureOf } from "./failure";
import { leadKey, pendingFacts, type Lead } from "./lead";
import { leadStoreFor } from "./stores";

/**
 * Delivers a checked submission the way a lead must be: kept in the pending
 * store before the first attempt, removed once the webhook acknowledged it,
 * kept for redelivery otherwise. A submission equal to a lead still pending
 * (the visitor trying again after the error) goes out under that lead's
 * webhook-id, so the workflow sees one lead, and its success settles both.
 */
export async function sendLead(form: FormName, payload: Record<string, unknown>, env: ServerEnv, started: number): Promise<Delivery> {
  const webhook = readWebhook(form);
  // Without a webhook the outbox file is the store.
  if (!webhook.url) return deliver(form, payload, { env, webhook, started });

  const store = leadStoreFor(env);
  const now = Date.now();
  const fresh: Lead = {
    id: newWebhookId(),
    form,
    key: leadKey(form, payload),
    payload,
    createdAt: now,
    attempts: 0,
    rounds: 0,
    // Not before the visitor's own attempts are over.
    nextAttemptAt: now + env.WEBHOOK_DEADLINE_MS + env.REDELIVERY_SCHEDULE_SECONDS[0]! * 1000,
    state: "pending",
  };
  let kept: Lead | undefined;
  try {
    kept = await store.add(fresh);
  } catch (error) {
    // The lead still goes out; only its safety net is missing, and the operator hears of it.
    logEvent("error", { event: "lead_store_failed", form, message: messageOf(error) });
  }

  const lead = kept ?? fresh;
  const delivery = await deliver(form, lead.payload, { env, webhook, started, webhookId: lead.id });
  if (!kept) return delivery;

  try {
    if (delivery.ok) {
      await store.remove(lead.key);
      return delivery;
    }
    const again = lead !== fresh;
    const failed: Lead = {
      ...lead,
      attempts: lead.attempts + delivery.attempts,
      lastFailure: failureOf(delivery),
      // A copy retried by its visitor keeps its place in the schedule; a dead one starts it again.
      ...(lead.state === "dead" ? { state: "pending", rounds: 0 } : {}),
      nextAttemptAt:
        again && lead.state === "pending" ? lead.nextAttemptAt : Date.now() + env.REDELIVERY_SCHEDULE_SECONDS[0]! * 1000,
    };
    await store.update(failed);
    logEvent("warn", pendingFacts(failed));
  } catch (error) {
    logEvent("error", { event: "lead_store_failed", form, webhookId: lead.id, message: messageOf(error) });
  }
  return delivery;
}
