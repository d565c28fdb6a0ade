import type * as z from "zod/mini";

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
