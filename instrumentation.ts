/** Next calls register() once when a server starts, before it takes requests. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkEnvironmentAtStart } = await import("./server/startup");
  await checkEnvironmentAtStart();
  // The operator hears of every lead this server settles, whichever bundle settles it.
  const { alertOnOutcomes } = await import("./server/alerts/alerts");
  alertOnOutcomes();
  // A server that stays up redelivers pending leads itself, those left from
  // before a restart included. On Vercel no process stays up: the cron route
  // (app/api/cron/redeliver) runs the passes instead.
  if (!process.env.VERCEL) {
    const { startRedelivery, stopRedelivery } = await import("./server/schedule/redelivery");
    startRedelivery();
    // Stopping: no new pass starts while Next closes the server; a pass under way
    // settles what it sent, and a lead it had claimed waits out its claim for the next server.
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, stopRedelivery);
  }
}
