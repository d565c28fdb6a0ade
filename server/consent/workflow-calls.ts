import "server-only";
import { signedByOneOf } from "@/server/outbox/webhook";
import { z } from "zod";
import { phoneOfAnySpelling } from "@/lib/forms/phone";
import { database, type Store } from "@/server/db/connect";
import { jsonAnswer, plainAnswer } from "@/server/web/answers";
import { boundedText, BodyTooLarge } from "@/server/web/bounded-body";
import { CONSENT_CALL_BYTES } from "@/server/web/request-bodies.mjs";
import { readEnv, type ServerEnv } from "@/server/env";
import { logEvent, messageOf } from "@/server/log";
import { revocationChannels } from "@/server/consent/consent-store";
import { renewConsent, revokeConsent } from "@/server/consent/consent-changes";

const STALE_AFTER_SECONDS = 300;

// The call's meaning is inside the bytes it signs ("type"): a STOP replayed to the renew route is refused.
// receivedAt orders a call retried through an outage by when it was texted; older workflows sign none.
const receivedAt = z.iso.datetime({ offset: true }).optional();
const revocationSchema = z.strictObject({
  type: z.literal("consent.revoke"),
  phone: z.string().max(64),
  channel: z.enum(revocationChannels).default("sms"),
  receivedAt,
});
const renewalSchema = z.strictObject({ type: z.literal("consent.renew"), phone: z.string().max(64), receivedAt });

const receivedTime = (call: { receivedAt?: string }) =>
  Math.min(call.receivedAt ? Date.parse(call.receivedAt) : Infinity, Date.now());

function staleness(headers: Headers) {
  const written = headers.get("webhook-timestamp") ?? "";
  if (!/^\d{1,12}$/.test(written)) return undefined;
  return Math.abs(Date.now() / 1000 - Number(written)) > STALE_AFTER_SECONDS ? "stale" : undefined;
}

type Refused = { event: string };

async function signedBody(request: Request, env: ServerEnv, refused: Refused): Promise<string | Response> {
  if (!env.CONSENT_WEBHOOK_SECRET) return plainAnswer(404, "Not Found");
  let body: string;
  try {
    body = await boundedText(request, CONSENT_CALL_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    logEvent("warn", { ...refused, reason: "too_large" });
    return plainAnswer(413, "Payload Too Large");
  }
  if (!signedByOneOf(env.CONSENT_WEBHOOK_SECRET, body, request.headers)) {
    logEvent("warn", { ...refused, reason: staleness(request.headers) ?? "signature" });
    return plainAnswer(401, "Unauthorized");
  }
  return body;
}

async function readCall<T extends { type: string; phone: string }>(
  request: Request,
  {
    schema,
    env,
    refused,
    shape,
  }: {
    schema: z.ZodType<T>;
    env: ServerEnv;
    refused: Refused;
    shape: string;
  },
): Promise<{ parsed: T; phone: string; messageId: string } | Response> {
  const body = await signedBody(request, env, refused);
  if (body instanceof Response) return body;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    // A workflow older than this site signs no type: it must be imported again (docs/sms-workflow.md).
    const untyped = typeof json === "object" && json !== null && !("type" in json);
    logEvent("warn", { ...refused, reason: untyped ? "untyped" : "body" });
    return plainAnswer(
      400,
      untyped
        ? `The body names no type: this workflow is older than the site. Import the site's workflows again. Expected ${shape}`
        : `The body must be JSON: ${shape}`,
    );
  }
  const phone = phoneOfAnySpelling(parsed.data.phone, env.PHONE_DEFAULT_COUNTRY);
  if (!phone) {
    logEvent("warn", { ...refused, reason: "phone" });
    return plainAnswer(400, "The phone is not a possible number");
  }
  return { parsed: parsed.data, phone, messageId: request.headers.get("webhook-id")! };
}

/** Made durable before the workflow is answered; a failing database answers 503, which the workflow retries. */
async function recorded<T>(
  env: ServerEnv,
  failed: { event: "consent_revoke_failed" | "consent_renew_failed" },
  record: (store: Store) => Promise<T>,
): Promise<T | Response> {
  try {
    const store = await database(env);
    const result = await record(store);
    await store.durable();
    return result;
  } catch (error) {
    logEvent("error", { ...failed, message: messageOf(error) });
    return plainAnswer(503, "Service Unavailable");
  }
}

/** POST /api/consent/revoke: a number replied STOP. Signed under CONSENT_WEBHOOK_SECRET; without it the route does not exist. */
export async function revokeRequest(request: Request): Promise<Response> {
  const env = readEnv();
  const refused = { event: "consent_revoke_refused" };
  const read = await readCall(request, {
    schema: revocationSchema,
    env,
    refused,
    shape: '{"type": "consent.revoke", "phone": "+15551234567", "channel": "sms" | "email" | "other"}',
  });
  if (read instanceof Response) return read;

  const result = await recorded(env, { event: "consent_revoke_failed" }, (store) =>
    revokeConsent(store, {
      phone: read.phone,
      channel: read.parsed.channel,
      source: "workflow",
      messageId: read.messageId,
      at: receivedTime(read.parsed),
    }),
  );
  if (result instanceof Response) return result;
  logEvent("info", {
    event: "consent_revoked",
    via: "workflow",
    channel: read.parsed.channel,
    recorded: result.recorded,
    leadsStopped: result.leadsStopped,
  });
  return jsonAnswer({ recorded: result.recorded, leadsStopped: result.leadsStopped });
}

/** POST /api/consent/renew: a number texted START. Only this call undoes a STOP; a sign-up on the web never does. */
export async function renewRequest(request: Request, onReleased: () => void = () => {}): Promise<Response> {
  const env = readEnv();
  const refused = { event: "consent_renew_refused" };
  const read = await readCall(request, {
    schema: renewalSchema,
    env,
    refused,
    shape: '{"type": "consent.renew", "phone": "+15551234567"}',
  });
  if (read instanceof Response) return read;

  const result = await recorded(env, { event: "consent_renew_failed" }, (store) =>
    renewConsent(store, { phone: read.phone, messageId: read.messageId, at: receivedTime(read.parsed) }),
  );
  if (result instanceof Response) return result;
  logEvent("info", {
    event: "consent_renewed",
    via: "workflow",
    recorded: result.recorded,
    leadsReleased: result.leadsReleased,
  });
  if (result.leadsReleased > 0) onReleased();
  return jsonAnswer({ recorded: result.recorded, leadsReleased: result.leadsReleased });
}
