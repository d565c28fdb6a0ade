import "server-only";
import { Webhook } from "standardwebhooks";
import { z } from "zod";
import { phoneOfAnySpelling } from "@/lib/forms/phone";
import { database } from "@/server/db/connect";
import { jsonAnswer, plainAnswer } from "@/server/http/answers";
import { boundedText, BodyTooLarge } from "@/server/http/bounded-body";
import { readEnv } from "@/server/env";
import { consentForms } from "@/lib/forms";
import { logEvent, messageOf } from "@/server/log";
import { revocationChannels, revokeConsent } from "./consent-store";

// A revocation is a phone number and a word: anything longer is not one.
const MAX_BODY_BYTES = 4_096;
// Standard Webhooks' tolerance, which the library applies too.
const STALE_AFTER_SECONDS = 300;

const bodySchema = z.object({
  phone: z.string().max(64),
  channel: z.enum(revocationChannels).default("sms"),
});

/** Whether one of the secrets in force signed this body, within Standard Webhooks' five minutes. */
function signedByOneOf(secrets: readonly string[], body: string, headers: Headers) {
  const signed = {
    "webhook-id": headers.get("webhook-id") ?? "",
    "webhook-timestamp": headers.get("webhook-timestamp") ?? "",
    "webhook-signature": headers.get("webhook-signature") ?? "",
  };
  return secrets.some((secret) => {
    try {
      new Webhook(secret).verify(body, signed);
      return true;
    } catch {
      return false;
    }
  });
}

/** "stale" when the call's timestamp is more than Standard Webhooks' five minutes off this server's clock. */
function staleness(headers: Headers) {
  const written = headers.get("webhook-timestamp") ?? "";
  if (!/^\d{1,12}$/.test(written)) return undefined;
  return Math.abs(Date.now() / 1000 - Number(written)) > STALE_AFTER_SECONDS ? "stale" : undefined;
}

/**
 * POST /api/consent/revoke: the workflow tells the site a number replied STOP
 * (or asked otherwise). The body is {phone, channel}, signed with Standard
 * Webhooks under CONSENT_WEBHOOK_SECRET; a wrong or stale signature records
 * nothing, and a replayed webhook-id records nothing twice. Without the
 * secret the route does not exist.
 */
export async function revokeRequest(request: Request): Promise<Response> {
  const env = readEnv();
  if (!env.CONSENT_WEBHOOK_SECRET) return plainAnswer(404, "Not Found");
  let body: string;
  try {
    body = await boundedText(request, MAX_BODY_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    logEvent("warn", { event: "consent_revoke_refused", reason: "too_large" });
    return plainAnswer(413, "Payload Too Large");
  }

  if (!signedByOneOf(env.CONSENT_WEBHOOK_SECRET, body, request.headers)) {
    logEvent("warn", { event: "consent_revoke_refused", reason: staleness(request.headers) ?? "signature" });
    return plainAnswer(401, "Unauthorized");
  }

  let parsed: z.infer<typeof bodySchema>;
  try {
    parsed = bodySchema.parse(JSON.parse(body));
  } catch {
    logEvent("warn", { event: "consent_revoke_refused", reason: "body" });
    return plainAnswer(400, 'The body must be JSON: {"phone": "+15551234567", "channel": "sms" | "email" | "other"}');
  }
  const phone = phoneOfAnySpelling(parsed.phone, env.PHONE_DEFAULT_COUNTRY);
  if (!phone) {
    logEvent("warn", { event: "consent_revoke_refused", reason: "phone" });
    return plainAnswer(400, "The phone is not a possible number");
  }

  try {
    const store = await database(env);
    const messageId = request.headers.get("webhook-id")!;
    const result = await revokeConsent(
      store,
      { phone, channel: parsed.channel, source: "workflow", messageId },
      consentForms,
    );
    await store.durable();
    logEvent("info", {
      event: "consent_revoked",
      via: "workflow",
      channel: parsed.channel,
      recorded: result.recorded,
      leadsStopped: result.leadsStopped,
    });
    return jsonAnswer({ recorded: result.recorded, leadsStopped: result.leadsStopped });
  } catch (error) {
    // The workflow retries a 5xx: the STOP is recorded once the database answers.
    logEvent("error", { event: "consent_revoke_failed", message: messageOf(error) });
    return plainAnswer(503, "Service Unavailable");
  }
}
