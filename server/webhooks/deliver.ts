import "server-only";
import { randomUUID } from "node:crypto";
import type { FormName } from "@/server/forms/form-name";
import { readEnv, type ServerEnv } from "@/server/env";
import { appendToOutbox } from "./outbox";
import { postJson, type AttemptResult } from "./post-json";

export type Delivery = {
  /** Sent as webhook-id and logged, so an operator can match both sides. */
  id: string;
  via: "webhook" | "outbox";
  attempts: number;
  durationMs: number;
} & ({ ok: true; status?: number } | { ok: false; reason: Exclude<AttemptResult, { ok: true }>["reason"]; status?: number });

function webhookUrl(form: FormName, env: ServerEnv) {
  return form === "contact" ? env.CONTACT_WEBHOOK_URL : env.WAITLIST_WEBHOOK_URL;
}

/** Sends a form's payload to its webhook, or to the local outbox when none is configured. */
export async function deliver(form: FormName, payload: object, env: ServerEnv = readEnv()): Promise<Delivery> {
  const id = `msg_${randomUUID()}`;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = webhookUrl(form, env);

  if (!url) {
    await appendToOutbox(env.OUTBOX_DIR, form, { id, receivedAt: new Date().toISOString(), payload });
    return { id, via: "outbox", ok: true, attempts: 1, durationMs: elapsed() };
  }

  const result = await postJson(url, JSON.stringify(payload), {}, env.WEBHOOK_DEADLINE_MS);
  return { id, via: "webhook", attempts: 1, durationMs: elapsed(), ...result };
}
