import "server-only";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { readEnv, readWebhook, type ServerEnv, type WebhookSettings } from "@/server/env";
import type { FormName } from "@/server/forms/registry";
import { appendToOutbox } from "./outbox";
import { postJson, type AttemptResult } from "./post-json";
import { backoffMs, isTransient } from "./retry-policy";
import { signatureHeaders } from "./signing";

type Failure = Exclude<AttemptResult, { ok: true }>;

export type Delivery = {
  /** Sent as webhook-id on every attempt (receivers drop duplicates by it) and logged. */
  webhookId: string;
  via: "webhook" | "outbox";
  attempts: number;
  durationMs: number;
} & ({ ok: true; status?: number } | { ok: false; reason: Failure["reason"]; status?: number });

// An attempt shorter than this is not worth starting.
const MIN_ATTEMPT_MS = 250;

/** A fresh webhook-id: one per lead, kept by every attempt and every redelivery. */
export const newWebhookId = () => `msg_${randomUUID()}`;

/**
 * One signed, authenticated POST of a body, with the secrets and auth header
 * in force now: a redelivery a day later is signed with the current secrets.
 */
export function attemptOnce(webhook: WebhookSettings & { url: string }, webhookId: string, body: string, timeoutMs: number) {
  const headers = {
    ...(webhook.auth ? { [webhook.auth.name]: webhook.auth.value } : {}),
    ...(webhook.secrets ? signatureHeaders(webhookId, body, webhook.secrets) : {}),
  };
  return postJson(webhook.url, body, headers, timeoutMs);
}

type DeliverOptions = {
  env?: ServerEnv;
  webhook?: WebhookSettings;
  /** When the visitor's wait began (performance.now()): the deadline counts from there, the limit checks included. */
  started?: number;
  /** The lead's webhook-id, when it has one already (a copy still pending). */
  webhookId?: string;
};

/**
 * Sends a form's payload to its webhook, signed and authenticated as configured,
 * or appends it to the local outbox when no URL is set. Transient failures are
 * retried with the same webhook-id while the visitor's wait stays within
 * WEBHOOK_DEADLINE_MS.
 */
export async function deliver(form: FormName, payload: object, options: DeliverOptions = {}): Promise<Delivery> {
  const { env = readEnv(), webhook = readWebhook(form), started = performance.now(), webhookId = newWebhookId() } = options;
  const elapsed = () => Math.round(performance.now() - started);
  const { url } = webhook;

  if (!url) {
    await appendToOutbox(env.OUTBOX_DIR, form, { id: webhookId, receivedAt: new Date().toISOString(), payload });
    return { webhookId, via: "outbox", ok: true, attempts: 1, durationMs: elapsed() };
  }

  const body = JSON.stringify(payload);
  let attempts = 0;
  let result: AttemptResult;
  for (;;) {
    attempts += 1;
    const timeoutMs = Math.min(env.WEBHOOK_ATTEMPT_TIMEOUT_MS, env.WEBHOOK_DEADLINE_MS - elapsed());
    result = await attemptOnce({ ...webhook, url }, webhookId, body, timeoutMs);
    if (!isTransient(result) || attempts > env.WEBHOOK_MAX_RETRIES) break;

    const delay = backoffMs(attempts, env.WEBHOOK_RETRY_BASE_MS);
    if (env.WEBHOOK_DEADLINE_MS - elapsed() - delay < MIN_ATTEMPT_MS) break;
    await sleep(delay);
  }
  return { webhookId, via: "webhook", attempts, durationMs: elapsed(), ...result };
}
