import { vi } from "vitest";
import type * as z from "zod/mini";

/** A schema's answer for one input: the value kept, or each field's first message. */
export function check(schema: z.ZodMiniType, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true as const, value: result.data };
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) errors[String(issue.path[0])] ??= issue.message;
  return { ok: false as const, errors };
}

// The variables the site reads: every one of them is unset first, so a test sees only what it gives.
const ours =
  /^(CONTACT|WAITLIST|INVITE|ALERT|RATE_LIMIT|REDIS|SITE|VERCEL|BUSINESS|WEBHOOK|REDELIVERY|HEALTH|CONSENT|LEAD|AUDIT|CONSOLE|PHONE|LEGAL|TRUSTED|DATA|DATABASE|OUTBOX|ENABLE|ALLOW|STUDIO|CRON)(_|$)/;

/** Reads `read` with the environment made of just these variables, stubbed until the test ends. */
export function withEnv<T>(variables: Record<string, string>, read: () => T): T {
  for (const name of Object.keys(process.env)) if (ours.test(name)) vi.stubEnv(name, undefined);
  vi.stubEnv("NODE_ENV", "test");
  for (const [name, value] of Object.entries(variables)) vi.stubEnv(name, value);
  return read();
}
