/** Next calls register() once when a server starts, before it takes requests. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // One JSON object per line, Next's own errors included (under `next dev`, its own readable lines).
  if (process.env.NODE_ENV === "production") {
    const { jsonFrameworkLogs } = await import("./server/framework-log.mjs");
    jsonFrameworkLogs();
  }
  const { checkEnvironmentAtStart } = await import("./server/ops/startup");
  await checkEnvironmentAtStart();
  const { alertsSettled } = await import("./server/outbox/alerts");
  const { beforeExit } = await import("./server/ops/shutdown");
  // A server that stays up redelivers pending leads itself, those left from
  // before a restart included. On Vercel no process stays up: the cron route
  // (app/api/cron/redeliver) runs the passes instead.
  if (!process.env.VERCEL) {
    const { startSchedule, finishSchedule } = await import("./server/ops/scheduler");
    startSchedule();
    // Stopping: no new pass starts, a pass under way claims nothing more, and
    // npm start waits for the attempts it sent to be answered and recorded.
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => void finishSchedule());
    beforeExit("schedule", finishSchedule);
  }
  // Then the alerts those attempts started.
  beforeExit("alerts", alertsSettled);
}
