import "server-only";
import { z } from "zod";
import type { CountSetting } from "@/lib/forms/define";
import { authHeader, count, parseOrThrow, webhookSecrets, webhookUrl } from "@/server/env";

/**
 * What each form's own settings say: where it delivers and how it proves it
 * (its webhook variables), and its ceilings. Read per request, like the rest
 * of the environment (server/env.ts).
 */

const loopbackHosts = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Whether a URL sends in clear to another machine: http:// to anything but this one. */
export const sendsInClear = (url: string) => {
  const { protocol, hostname } = new URL(url);
  return protocol === "http:" && !loopbackHosts.test(hostname);
};

/**
 * A form's webhook variables: its name, upper-cased, is their prefix, so the
 * "waitlist" form reads WAITLIST_WEBHOOK_URL, WAITLIST_WEBHOOK_SECRET and
 * WAITLIST_WEBHOOK_AUTH_HEADER, and a new form needs no change here.
 */
export function webhookVariables(form: string) {
  const prefix = `${form.toUpperCase()}_WEBHOOK`;
  return { url: `${prefix}_URL`, secrets: `${prefix}_SECRET`, auth: `${prefix}_AUTH_HEADER` } as const;
}

const webhookSchema = z.object({ url: webhookUrl, secrets: webhookSecrets, auth: authHeader });

export type WebhookSettings = z.output<typeof webhookSchema> & {
  /** The variable that holds the URL, for log lines. */
  urlVariable: string;
};

/** Where a form delivers and how it proves it. */
export function readWebhook(form: string): WebhookSettings {
  const names = webhookVariables(form);
  const source = process.env;
  const values = { url: source[names.url], secrets: source[names.secrets], auth: source[names.auth] };
  const settings = parseOrThrow(webhookSchema, values, (key) => names[key as keyof typeof names]);
  return { ...settings, urlVariable: names.url };
}

/**
 * The numbers a form's definition names for its ceiling (its own variables,
 * e.g. WAITLIST_DAILY_LIMIT), each its fallback when unset; a new form's
 * ceiling needs no change here.
 */
export function readCeiling(ceiling: { perMinute: CountSetting; perDay: CountSetting }) {
  const source = process.env;
  const schema = z.object({ perMinute: count(ceiling.perMinute.fallback), perDay: count(ceiling.perDay.fallback) });
  const values = { perMinute: source[ceiling.perMinute.variable], perDay: source[ceiling.perDay.variable] };
  return parseOrThrow(schema, values, (key) => ceiling[key as keyof typeof ceiling].variable);
}
