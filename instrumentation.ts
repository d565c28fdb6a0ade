/** Next calls register() once when a server starts, before it takes requests. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Every page Next sends whole starts its scripts after the first paint, those
  // regenerated at run time too (the built ones are rewritten by npm run build).
  const { renderedBodyTransform } = await import("./server/http/late-hydration");
  Object.assign(globalThis, { [Symbol.for("next.renderedBodyTransform")]: renderedBodyTransform });
  const { checkEnvironmentAtStart } = await import("./server/startup");
  await checkEnvironmentAtStart();
  const { alertsSettled } = await import("./server/alerts/alerts");
  const { beforeExit } = await import("./server/shutdown");
  // A server that stays up redelivers pending leads itself, those left from
  // before a restart included. On Vercel no process stays up: the cron route
  // (app/api/cron/redeliver) runs the passes instead.
  if (!process.env.VERCEL) {
    const { startRedelivery, finishRedelivery } = await import("./server/schedule/redelivery");
    startRedelivery();
    // Stopping: no new pass starts, a pass under way claims nothing more, and
    // npm start waits for the attempts it sent to be answered and recorded.
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => void finishRedelivery());
    beforeExit("redelivery", finishRedelivery);
  }
  // Then the alerts those attempts started.
  beforeExit("alerts", alertsSettled);
}
