import "server-only";
import type { WebhookSettings } from "@/server/env";
import { postJson } from "./post-json";
import { signatureHeaders } from "./signing";

/**
 * Sent with a redelivery, when an earlier attempt under the same webhook-id
 * may have reached the receiver (it was posted, whatever came back): the Unix
 * time in seconds from which that attempt's effect may be found. The SMS
 * workflow asks Twilio whether it texted the number since then before it
 * texts again, where its own memory of webhook-ids has no answer.
 */
const REDELIVERY_SINCE_HEADER = "sous-redelivery-since";

/**
 * One signed, authenticated POST of a body, with the secrets and auth header
 * in force now: a redelivery a day later is signed with the current secrets.
 * Leads, the launch invitations (reading the answer) and the operator's
 * alerts all send through it. `redeliverySince` (ms since the epoch) marks a
 * redelivery.
 */
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
