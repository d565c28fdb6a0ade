import "server-only";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { readEnv, readWebhook, type ServerEnv } from "@/server/env";
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

/**
 * Sends a form's payload to its webhook, signed and authenticated as configured,
 * or appends it to the local outbox when no URL is set. Transient failures are
 * retried with the same webhook-id while the visitor's wait stays within
 * WEBHOOK_DEADLINE_MS.
 */
export async function deliver(
  form: FormName,
  payload: object,
  env: ServerEnv = readEnv(),
  { url, secrets, auth } = readWebhook(form),
  /** When the visitor's wait began (performance.now()): the deadline counts from there, the limit checks included. */
  started = performance.now(),
): Promise<Delivery> {
  const webhookId = `msg_${randomUUID()}`;
  const elapsed = () => Math.round(performance.now() - started);

  if (!url) {
    await appendToOutbox(env.OUTBOX_DIR, form, { id: webhookId, receivedAt: new Date().toISOString(), payload });
    return { webhookId, via: "outbox", ok: true, attempts: 1, durationMs: elapsed() };
  }

  const body = JSON.stringify(payload);
  let attempts = 0;
  let result: AttemptResult;
  for (;;) {
    attempts += 1;
    const headers = {
      ...(auth ? { [auth.name]: auth.value } : {}),
      ...(secrets ? signatureHeaders(webhookId, body, secrets) : {}),
    };
    const timeoutMs = Math.min(env.WEBHOOK_ATTEMPT_TIMEOUT_MS, env.WEBHOOK_DEADLINE_MS - elapsed());
    result = await postJson(url, body, headers, timeoutMs);
    if (!isTransient(result) || attempts > env.WEBHOOK_MAX_RETRIES) break;

    const delay = backoffMs(attempts, env.WEBHOOK_RETRY_BASE_MS);
    if (env.WEBHOOK_DEADLINE_MS - elapsed() - delay < MIN_ATTEMPT_MS) break;
    await sleep(delay);
  }
  return { webhookId, via: "webhook", attempts, durationMs: elapsed(), ...result };
}
