import { parsePhoneNumberFromString } from "libphonenumber-js/min";
import * as z from "zod/mini";
import type { PhonePolicy } from "@/lib/forms/phone";
import type { SchemaTools } from "@/lib/forms/text";

/** The tools the server builds schemas with (server/forms/registry.ts), for the contract's own tests. */
export function schemaTools(policy: PhonePolicy = { defaultCountry: "US", countries: ["US", "CA"] }): SchemaTools {
  return { z, phone: { parse: parsePhoneNumberFromString, policy } };
}

/** A schema's answer for one input: the value kept, or each field's first message. */
export function check(schema: z.ZodMiniType, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true as const, value: result.data };
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) errors[String(issue.path[0])] ??= issue.message;
  return { ok: false as const, errors };
}

/** An environment made of just these variables, as readEnv and its kin take it. */
export const envOf = (variables: Record<string, string>): NodeJS.ProcessEnv => ({ NODE_ENV: "test", ...variables });
