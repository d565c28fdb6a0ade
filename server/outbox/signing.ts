import "server-only";
import { Webhook } from "standardwebhooks";

/**
 * Standard Webhooks headers for one delivery attempt. With several secrets the
 * signature header carries one "v1,<base64>" per secret, separated by spaces,
 * so a receiver that knows either secret accepts it: add the new secret here,
 * switch the receiver, then drop the old one.
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
 * Whether one of the secrets in force signed this body, within Standard
 * Webhooks' five minutes: how the site checks the calls n8n makes into it.
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
      // verify() parses the body once its signature holds: a body that is not JSON was signed all the same, and
      // its caller answers it as a bad body (400), not as a bad signature.
      return error instanceof SyntaxError;
    }
  });
}
