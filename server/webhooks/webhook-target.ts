import "server-only";
import type { ServerEnv } from "@/server/env";
import type { FormName } from "@/server/forms/form-name";

/** Where a form delivers and how it proves it: its CONTACT_* or WAITLIST_* variables. */
export function webhookTarget(form: FormName, env: ServerEnv) {
  const prefix = form === "contact" ? "CONTACT" : "WAITLIST";
  return {
    urlVariable: `${prefix}_WEBHOOK_URL`,
    url: env[`${prefix}_WEBHOOK_URL`],
    secrets: env[`${prefix}_WEBHOOK_SECRET`],
    auth: env[`${prefix}_WEBHOOK_AUTH_HEADER`],
  } as const;
}
