import "server-only";
import { Webhook } from "standardwebhooks";
import type { WebhookSettings } from "@/server/env";

export type AttemptResult =
  | { ok: true; status: number; body?: string }
  | { ok: false; reason: "status" | "redirect" | "unready"; status: number; body?: string }
  | { ok: false; reason: "timeout" | "network" };

// n8n answers every request 200 with this text while it starts (until its migrations are done): no workflow ran.
const N8N_STARTING = "n8n is starting up. Please wait";

// A receiver's answer is read up to this many bytes, when asked: enough for a small JSON answer.
const ANSWER_BYTES = 4_096;

/** The first ANSWER_BYTES of a body, as text: a receiver that streams on is not waited for. */
async function firstBytesOf(response: Response) {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < ANSWER_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel();
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, ANSWER_BYTES));
}

/**
 * Redirects are not followed: the receiver moved or wants a login, and replaying a lead elsewhere is not ours to
 * decide. A failure's body is read too: a workflow says there why it refused.
 */
export async function postJson({
  url,
  body,
  headers,
  timeoutMs,
  readAnswer = false,
}: {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  readAnswer?: boolean;
}): Promise<AttemptResult> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    const { status } = response;
    const ok = status >= 200 && status < 300;
    const html = response.headers.get("content-type")?.startsWith("text/html") ?? false;
    // Free the connection without reading a body nobody needs.
    const answer =
      readAnswer || !ok || html ? { body: await firstBytesOf(response) } : (await response.body?.cancel(), {});
    if (ok && answer.body === N8N_STARTING) return { ok: false, reason: "unready", status, body: answer.body };
    if (ok) return { ok: true, status, ...(readAnswer ? answer : {}) };
    return { ok: false, reason: status >= 300 && status < 400 ? "redirect" : "status", status, ...answer };
  } catch (error) {
    const timedOut = error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError");
    return { ok: false, reason: timedOut ? "timeout" : "network" };
  }
}

/**
 * Standard Webhooks headers for one delivery attempt. With several secrets the signature header carries one
 * "v1,<base64>" per secret, separated by spaces, so a receiver that knows either secret accepts it: add the new secret
 * here, switch the receiver, then drop the old one.
 */
export function signatureHeaders(id: string, body: string, secrets: readonly string[]) {
  const now = new Date();
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(id, now, body)).join(" "),
  };
}

/**
 * Whether one of the secrets in force signed this body, within Standard Webhooks' five minutes: how the site checks the
 * calls n8n makes into it.
 */
export function signedByOneOf(secrets: readonly string[], body: string, headers: Headers) {
  const signed = {
    "webhook-id": headers.get("webhook-id") ?? "",
    "webhook-timestamp": headers.get("webhook-timestamp") ?? "",
    "webhook-signature": headers.get("webhook-signature") ?? "",
  };
  return secrets.some((secret) => {
    try {
      new Webhook(secret).verify(body, signed);
      return true;
    } catch (error) {
      // verify() parses the body once its signature holds: a body that is not JSON was signed all the same, and its
      // caller answers it as a bad body (400), not as a bad signature.
      return error instanceof SyntaxError;
    }
  });
}

// On a redelivery that an earlier attempt may have reached: since when (Unix seconds) the SMS workflow asks Twilio
// whether it texted the number already, where its own memory of webhook-ids has no answer.
const REDELIVERY_SINCE_HEADER = "sous-redelivery-since";

/** Signed with the secrets in force now: a redelivery a day later is signed with the current secrets. */
export function postSigned(
  webhook: Pick<WebhookSettings, "secrets" | "auth"> & { url: string },
  {
    webhookId,
    body,
    timeoutMs,
    readAnswer,
    redeliverySince,
  }: { webhookId: string; body: string; timeoutMs: number; readAnswer?: boolean; redeliverySince?: number },
) {
  const headers = {
    ...(webhook.auth ? { [webhook.auth.name]: webhook.auth.value } : {}),
    ...(webhook.secrets ? signatureHeaders(webhookId, body, webhook.secrets) : {}),
    ...(redeliverySince === undefined ? {} : { [REDELIVERY_SINCE_HEADER]: String(Math.floor(redeliverySince / 1000)) }),
  };
  return postJson({ url: webhook.url, body, headers, timeoutMs, readAnswer });
}

/**
 * The `error` word of a refusal (`{"error": "twilio_refused", "twilioStatus": 401}`) and Twilio's status: only a
 * lower-case word and a three-digit status, as it goes into log lines and alerts, where nothing else from a body may.
 */
function statedReason(body: string | undefined) {
  let answer: { error?: unknown; twilioStatus?: unknown } | null;
  try {
    answer = JSON.parse(body ?? "") as typeof answer;
  } catch {
    return "";
  }
  const word = answer?.error;
  if (typeof word !== "string" || !/^[a-z][a-z0-9_]{0,39}$/.test(word)) return "";
  const twilio = answer!.twilioStatus;
  const status = Number.isInteger(twilio) && (twilio as number) >= 100 && (twilio as number) <= 599 ? ` ${twilio}` : "";
  return ` ${word}${status}`;
}

/** Why an attempt failed, for the operator: a status or a kind of failure and the receiver's stated reason, never a body. */
export const failureOf = (result: { ok: boolean; reason?: string; status?: number; body?: string }) =>
  result.ok
    ? undefined
    : result.status !== undefined
      ? `${result.reason} ${result.status}${statedReason(result.body)}`
      : result.reason;

/**
 * What the texting workflow answered: texted, or refused with the carrier's code. A 2xx that says neither is no answer:
 * n8n answers 200 with an empty body when an execution dies before its Respond node.
 */
export function textedAnswer(body: string | undefined) {
  try {
    const answer = JSON.parse(body ?? "") as { texted?: unknown; code?: unknown } | null;
    if (answer?.texted === true) return { texted: true as const };
    if (answer?.texted === false)
      return {
        texted: false as const,
        code: answer.code === undefined || answer.code === null ? null : String(answer.code),
      };
  } catch {}
  return undefined;
}

/** A 4xx other than 408 and 429 will not change by itself, nor will a redirect. */
export function isTransient(result: AttemptResult) {
  if (result.ok) return false;
  if (result.reason === "network" || result.reason === "timeout" || result.reason === "unready") return true;
  return result.reason === "status" && (result.status === 408 || result.status === 429 || result.status >= 500);
}

/** Exponential backoff with jitter, so retrying servers do not stampede together. */
export function backoffMs(retry: number, baseMs: number) {
  const ceiling = baseMs * 2 ** (retry - 1);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
