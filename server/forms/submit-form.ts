import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { FieldErrors, FormState } from "@/components/forms/form-state";
import { honeypotName } from "@/components/forms/honeypot-field";
import { readEnv } from "@/server/env";
import { logEvent } from "@/server/log";
import { clientAddress } from "@/server/rate-limit/client-address";
import { checkLimits } from "@/server/rate-limit/limits";
import { deliver } from "@/server/webhooks/deliver";
import type { FormName } from "./form-name";

export type FormDefinition<Values, Parsed, Payload extends object> = {
  form: FormName;
  /** Reads the posted fields as typed; never throws. */
  readValues(formData: FormData): Values;
  emptyValues: Values;
  /** A zod 4 schema, classic or mini. */
  schema: z.core.$ZodType<Parsed, Values>;
  /** The exact webhook body: the spec's keys, nothing else. */
  toPayload(parsed: Parsed): Payload;
  /** The phone number a submission would text, for the per-phone limit. */
  phoneOf?(parsed: Parsed): string;
};

/** A posted field as a string: absent or a file counts as empty. */
export function field(formData: FormData, name: string) {
  const value = formData.get(name);
  return typeof value === "string" ? value : "";
}

function firstErrors<Values>(error: z.core.$ZodError): FieldErrors<Values> {
  const { fieldErrors } = z.flattenError(error);
  return Object.fromEntries(
    Object.entries(fieldErrors).map(([name, messages]) => [name, (messages as string[])[0]]),
  ) as FieldErrors<Values>;
}

/**
 * Checks a post and delivers it: honeypot, schema, rate limits, then the
 * webhook. Every outcome is a result and one log line; the log names fields,
 * statuses and limiters, never what the visitor typed.
 */
export async function submitForm<Values, Parsed, Payload extends object>(
  definition: FormDefinition<Values, Parsed, Payload>,
  formData: FormData,
  requestHeaders: Headers,
): Promise<FormState<Values>> {
  const { form } = definition;
  const values = definition.readValues(formData);
  const answer = (status: FormState<Values>["status"], extra: Partial<FormState<Values>> = {}): FormState<Values> => ({
    status,
    id: randomUUID(),
    values: status === "success" ? definition.emptyValues : values,
    errors: {},
    ...extra,
  });
  const log = (level: "info" | "warn" | "error", outcome: string, facts: object = {}) =>
    logEvent(level, { event: "submission", form, outcome, ...facts });

  try {
    // A bot is told it succeeded, so it learns nothing; nothing is sent.
    if (field(formData, honeypotName)) {
      log("warn", "honeypot");
      return answer("success");
    }

    const parsed = z.safeParse(definition.schema, values);
    if (!parsed.success) {
      const errors = firstErrors<Values>(parsed.error);
      log("info", "invalid", { fields: Object.keys(errors) });
      return answer("invalid", { errors });
    }

    const env = readEnv();
    const address = clientAddress(requestHeaders.get("x-forwarded-for"), env.TRUSTED_PROXY_HOPS);
    const limits = await checkLimits({ form, address, phone: definition.phoneOf?.(parsed.data) }, env);
    if (!limits.ok) {
      log("warn", "rate_limited", { limiter: limits.limiter, retryAfterSeconds: limits.retryAfterSeconds });
      return answer("rate_limited", { retryAfterSeconds: limits.retryAfterSeconds });
    }

    const { ok, ...facts } = await deliver(form, definition.toPayload(parsed.data), env);
    // A lead that did not arrive does not count against the visitor's next try.
    if (!ok) await limits.release();
    log(ok ? "info" : "error", ok ? "delivered" : "failed", facts);
    return answer(ok ? "success" : "failed");
  } catch (error) {
    log("error", "error", { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    return answer("failed");
  }
}
