import "server-only";
import { randomUUID } from "node:crypto";
import { headers } from "next/headers";
import * as z from "zod/mini";
import type { FieldErrors, FormState } from "@/lib/forms/form-state";
import { honeypotName } from "@/lib/forms/honeypot";
import { readEnv } from "@/server/env";
import { logEvent } from "@/server/log";
import { clientAddress } from "@/server/rate-limit/client-address";
import { checkLimits } from "@/server/rate-limit/limits";
import { deliver } from "@/server/webhooks/deliver";
import { formRegistry, type FormEntry, type FormName, type FormValues } from "./registry";

type Values = Record<string, string | boolean>;

/** The posted fields as typed: absent or a file counts as empty, a checked box posts "on". */
function readValues(formData: FormData, emptyValues: Values): Values {
  return Object.fromEntries(
    Object.entries(emptyValues).map(([name, empty]) => {
      const posted = formData.get(name);
      if (typeof empty === "boolean") return [name, posted === "on"];
      return [name, typeof posted === "string" ? posted : ""];
    }),
  );
}

function firstErrors(error: z.core.$ZodError): FieldErrors<Values> {
  const { fieldErrors } = z.flattenError(error);
  return Object.fromEntries(
    Object.entries(fieldErrors).map(([name, messages]) => [name, (messages as string[])[0]]),
  ) as FieldErrors<Values>;
}

function pick(lead: Record<string, unknown>, keys: readonly string[]) {
  return Object.fromEntries(keys.map((key) => [key, lead[key]]));
}

/**
 * Checks a post and delivers it: honeypot, schema, rate limits, then the
 * webhook, as the form's registry entry says. Every outcome is a result and one
 * log line; the log names fields, statuses and limiters, never what the
 * visitor typed.
 */
export async function submitForm<Name extends FormName>(form: Name, formData: FormData): Promise<FormState<FormValues<Name>>> {
  const entry: FormEntry<z.ZodMiniObject> = formRegistry[form];
  const values = readValues(formData, entry.emptyValues as Values);
  const answer = (status: FormState<Values>["status"], extra: Partial<FormState<Values>> = {}) =>
    ({
      status,
      id: randomUUID(),
      values: status === "success" ? entry.emptyValues : values,
      errors: {},
      ...extra,
    }) as FormState<FormValues<Name>>;
  const log = (level: "info" | "warn" | "error", outcome: string, facts: object = {}) =>
    logEvent(level, { event: "submission", form, outcome, ...facts });

  try {
    // A bot is told it succeeded, so it learns nothing; nothing is sent.
    if (formData.get(honeypotName)) {
      log("warn", "honeypot");
      return answer("success");
    }

    const parsed = z.safeParse(entry.schema, values);
    if (!parsed.success) {
      const errors = firstErrors(parsed.error);
      log("info", "invalid", { fields: Object.keys(errors) });
      return answer("invalid", { errors });
    }
    const lead = parsed.data as Record<string, unknown>;

    const env = readEnv();
    const address = clientAddress((await headers()).get("x-forwarded-for"), env.TRUSTED_PROXY_HOPS);
    const { phone, ceilingPerMinute } = entry.limits;
    const limits = await checkLimits(
      {
        form,
        address,
        phone: phone ? String(lead[phone]) : undefined,
        ceilingPerMinute: ceilingPerMinute ? env[ceilingPerMinute] : undefined,
      },
      env,
    );
    if (!limits.ok) {
      log("warn", "rate_limited", { limiter: limits.limiter, retryAfterSeconds: limits.retryAfterSeconds });
      return answer("rate_limited", { retryAfterSeconds: limits.retryAfterSeconds });
    }

    const payload = pick(lead, entry.payload ?? Object.keys(entry.schema.shape));
    const { ok, ...facts } = await deliver(form, payload, env);
    // A lead that did not arrive does not count against the visitor's next try.
    if (!ok) await limits.release();
    log(ok ? "info" : "error", ok ? "delivered" : "failed", facts);
    return answer(ok ? "success" : "failed");
  } catch (error) {
    log("error", "error", { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    return answer("failed");
  }
}
