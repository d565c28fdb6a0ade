import "server-only";
import { readEnv, type ServerEnv } from "./env";
import { logEvent } from "./log";
import { connectLimitStore } from "./rate-limit/limits";
import { outboxFile } from "./webhooks/outbox";
import { webhookTarget } from "./webhooks/webhook-target";

/**
 * Runs once when the server starts (see instrumentation.ts) and logs what each
 * form delivers to. A bad environment stops the process here, loudly, rather
 * than letting the site run until the first lead fails.
 */
export async function checkEnvironmentAtStart() {
  let env: ServerEnv;
  try {
    env = readEnv();
  } catch (error) {
    logEvent("error", { event: "startup_failed", message: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
  for (const form of ["contact", "waitlist"] as const) {
    const { url, urlVariable } = webhookTarget(form, env);
    if (url) {
      // The host only: automation URLs often carry a secret in their path.
      logEvent("info", { event: "webhook_configured", form, host: new URL(url).host });
    } else {
      const file = outboxFile(env.OUTBOX_DIR, form);
      logEvent("warn", {
        event: "outbox_default",
        form,
        file,
        message: `${urlVariable} is not set: ${form} submissions are appended to ${file}`,
      });
    }
  }
  if (env.REDIS_URL) {
    const host = new URL(env.REDIS_URL).host;
    if (await connectLimitStore(env.REDIS_URL)) logEvent("info", { event: "rate_limits_shared", store: "redis", host });
    else logEvent("warn", { event: "redis_unreachable", host, message: "rate limits count in memory until Redis answers" });
  }
}
