import "server-only";
import { z } from "zod";

/**
 * The one place that reads the server's environment. Every call parses
 * process.env afresh, so a restart with new values takes effect without a
 * rebuild; nothing here is inlined into a bundle. See .env.example.
 */

const blankToUndefined = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());
const withDefault = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema);
const flag = withDefault(z.stringbool().default(false));
const milliseconds = (fallback: number) => withDefault(z.coerce.number().int().min(1).max(60_000).default(fallback));

const webhookUrl = optional(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }));

const envSchema = z.object({
  CONTACT_WEBHOOK_URL: webhookUrl,
  WAITLIST_WEBHOOK_URL: webhookUrl,
  OUTBOX_DIR: withDefault(z.string().default("data")),
  WEBHOOK_DEADLINE_MS: milliseconds(9_000),

  ENABLE_TEST_ROUTES: flag,
});

export type ServerEnv = z.infer<typeof envSchema>;

export class EnvError extends Error {
  override name = "EnvError";
}

/** Parses the environment; throws an EnvError naming every bad variable. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): ServerEnv {
  const result = envSchema.safeParse(source);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
  throw new EnvError(`Invalid server environment: ${problems.join("; ")}`);
}
