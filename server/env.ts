import "server-only";
import { z } from "zod";

/**
 * The one place that reads the server's environment. Every call parses
 * process.env afresh, so a restart with new values takes effect without a
 * rebuild; nothing here is inlined into a bundle. See .env.example.
 */

const blankToUndefined = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

const flag = z.preprocess(blankToUndefined, z.stringbool().default(false));

const envSchema = z.object({
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
