/** Next calls register() once when a server starts, before it takes requests. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkEnvironmentAtStart } = await import("./server/startup");
  await checkEnvironmentAtStart();
}
