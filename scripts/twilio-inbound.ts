import { createHmac, randomBytes } from "node:crypto";

/**
 * A text as Twilio posts it to a messaging webhook, signed as Twilio signs it: what `npm run sms:test` sends to the
 * workflow's inbound URL, and what the browser tests' stand-in for Twilio sends. Written from Twilio's docs, apart from
 * the workflow's own check (workflows/n8n/code/inbound.js).
 */

/** Twilio's X-Twilio-Signature: base64 HMAC-SHA1 of the URL, then every field's name and value, sorted by name. */
export function twilioSignature(authToken: string, url: string, fields: Record<string, string>) {
  const signed =
    url +
    Object.keys(fields)
      .sort()
      .map((name) => name + fields[name])
      .join("");
  return createHmac("sha1", authToken).update(signed).digest("base64");
}

/** The fields Twilio posts for an incoming SMS, with a new MessageSid. */
export function incomingSmsFields(
  fields: { From: string; Body: string; OptOutType?: string },
  options: { accountSid?: string; to?: string } = {},
): Record<string, string> {
  const messageSid = `SM${randomBytes(16).toString("hex")}`;
  return {
    ToCountry: "US",
    SmsMessageSid: messageSid,
    NumMedia: "0",
    MessageSid: messageSid,
    AccountSid: options.accountSid ?? "AC00000000000000000000000000000001",
    To: options.to ?? "+15005550006",
    NumSegments: "1",
    ApiVersion: "2010-04-01",
    ...fields,
  };
}

/**
 * Posts an incoming SMS to `target` (where the request goes), signed for `inboundUrl` (the URL Twilio is configured
 * with, which the workflow checks): the two differ behind a proxy, or in a test.
 */
export async function postIncomingSms(
  inboundUrl: string,
  target: string,
  form: Record<string, string>,
  options: { authToken?: string; signature?: string; timeoutMs?: number } = {},
) {
  const signature =
    options.signature ?? (options.authToken ? twilioSignature(options.authToken, inboundUrl, form) : undefined);
  const response = await fetch(target, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(signature ? { "x-twilio-signature": signature } : {}),
    },
    body: new URLSearchParams(form).toString(),
    signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    text: await response.text(),
    messageSid: form.MessageSid!,
  };
}
