import { randomBytes } from "node:crypto";

/** A fresh Standard Webhooks secret, as `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret() {
  return `whsec_${randomBytes(32).toString("base64")}`;
}
