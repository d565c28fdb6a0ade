import "server-only";
import { alertsSettled } from "@/server/outbox/alerts";
import { jsonAnswer, plainAnswer } from "@/server/web/answers";
import { bearerMatches } from "@/server/web/bearer";
import { runTasks, taskNames } from "@/server/ops/scheduler";
import { readEnv } from "@/server/env";

// The pass stops starting attempts well before Vercel stops the function.
/** Vercel stops a function after this many seconds: the route exports it as its maxDuration. */
export const cronMaxDurationSeconds = 60;
const SAFETY_MS = 5_000;

/**
 * One tick of the schedule, every task, for hosts where no server process stays up (Vercel):
 * vercel.json's cron calls it with "Authorization: Bearer <CRON_SECRET>".
 * Without CRON_SECRET the route does not exist.
 */
export async function cronRequest(request: Request) {
  const env = readEnv();
  if (!env.CRON_SECRET) return plainAnswer(404, "Not Found");
  if (!bearerMatches(request.headers.get("authorization"), env.CRON_SECRET)) {
    return plainAnswer(401, "Unauthorized", { "www-authenticate": "Bearer" });
  }
  // The last attempt started may still take WEBHOOK_ATTEMPT_TIMEOUT_MS.
  const budgetMs = Math.max(
    0,
    Math.min(env.REDELIVERY_PASS_BUDGET_MS, cronMaxDurationSeconds * 1000 - env.WEBHOOK_ATTEMPT_TIMEOUT_MS - SAFETY_MS),
  );
  const summary = await runTasks(taskNames, { env, via: "cron", budgetMs });
  // Vercel may freeze the function once it answers: the tick's alerts go out first.
  await alertsSettled();
  return jsonAnswer(summary);
}
