// @ts-check
/**
 * What `npm start` runs once it has stopped taking connections: the work the
 * app registered for its exit (server/shutdown.ts), one after the other, each
 * awaited, a failing one logged and the rest run all the same; the whole
 * within `limitMs`, past which the process exits anyway.
 * @param {Iterable<[string, () => Promise<unknown>]>} tasks
 * @param {{ limitMs: number, log?: (line: string, error?: unknown) => void }} options
 * @returns {Promise<boolean>} whether it all finished within the limit
 */
export async function runExitWork(tasks, { limitMs, log = console.error }) {
  const all = (async () => {
    for (const [name, task] of tasks) {
      try {
        await task();
      } catch (error) {
        log(`exit work ${name} failed:`, error);
      }
    }
    return true;
  })();
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const limit = new Promise((resolve) => (timer = setTimeout(() => resolve(false), limitMs)));
  const finished = /** @type {boolean} */ (await Promise.race([all, limit]));
  clearTimeout(timer);
  if (!finished) log(`exit work not finished after ${limitMs} ms`);
  return finished;
}
