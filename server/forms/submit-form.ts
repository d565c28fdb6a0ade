import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { FieldErrors, FormState } from "@/components/forms/form-state";
import { logEvent } from "@/server/log";
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
 * Validates a post with the form's schema and delivers it. Every outcome is a
 * result and one log line; the log names fields and statuses, never values.
 */
export async function submitForm<Values, Parsed, Payload extends object>(
  definition: FormDefinition<Values, Parsed, Payload>,
  formData: FormData,
): Promise<FormState<Values>> {
  const { form } = definition;
  const values = definition.readValues(formData);
  const answer = (status: FormState<Values>["status"], errors: FieldErrors<Values> = {}): FormState<Values> => ({
    status,
    id: randomUUID(),
    values: status === "success" ? definition.emptyValues : values,
    errors,
  });

  const parsed = z.safeParse(definition.schema, values);
  if (!parsed.success) {
    const errors = firstErrors<Values>(parsed.error);
    logEvent("info", { event: "submission", form, outcome: "invalid", fields: Object.keys(errors) });
    return answer("invalid", errors);
  }

  try {
    const delivery = await deliver(form, definition.toPayload(parsed.data));
    const { ok, ...facts } = delivery;
    logEvent(ok ? "info" : "error", { event: "submission", form, outcome: ok ? "delivered" : "failed", ...facts });
    return answer(ok ? "success" : "failed");
  } catch (error) {
    logEvent("error", {
      event: "submission",
      form,
      outcome: "error",
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    return answer("failed");
  }
}
