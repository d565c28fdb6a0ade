import "server-only";
import { EnvError, problemsOf, readEnv, readWebhook } from "./env";
import { formNames } from "./forms/registry";
import { logEvent } from "./log";
import { connectLimitStore } from "./rate-limit/limits";
import { outboxFile } from "./webhooks/outbox";

/**
 * Runs once when the server starts (see instrumentation.ts) and logs what each
 * form delivers to. A bad environment stops the process here, loudly, rather
 * than letting the site run until the first lead fails.
 */
export async function checkEnvironmentAtStart() {
  const problems = [readEnv, ...formNames.map((form) => () => readWebhook(form))].flatMap(problemsOf);
  if (problems.length) {
    logEvent("error", { event: "startup_failed", message: new EnvError(problems).message });
    process.exit(1);
  }
  const env = readEnv();
  for (const form of formNames) {
    const webhook = readWebhook(form);
    if (webhook.url) {
      // The host only: automation URLs often carry a secret in their path.
      logEvent("info", { event: "webhook_configured", form, host: new URL(webhook.url).host });
    } else {
      const file = outboxFile(env.OUTBOX_DIR, form);
      logEvent("warn", {
        event: "outbox_default",
        form,
        file,
        message: `${webhook.urlVariable} is not set: ${form} submissions are appended to ${file}`,
      });
    }
  }
  if (env.REDIS_URL) {
    const host = new URL(env.REDIS_URL).host;
    if (await connectLimitStore(env.REDIS_URL, env.REDIS_COMMAND_TIMEOUT_MS)) logEvent("info", { event: "rate_limits_shared", store: "redis", host });
    else logEvent("warn", { event: "redis_unreachable", host, message: "rate limits count in memory until Redis answers" });
  }
}
