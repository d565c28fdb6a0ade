// @ts-check
import { format } from "node:util";
import { logLine } from "../server/escape-controls.mjs";

/** @typedef {{ event: "exit_work_failed", task: string, message: string } | { event: "exit_work_unfinished", limitMs: number }} ExitWorkLine */

/** @param {ExitWorkLine} fields */
const logError = (fields) => console.error(logLine("error", fields));

/**
 * The work the app registered for its exit, one after the other; a failing one is logged and the rest run all the
 * same, the whole within `limitMs`.
 * @param {Iterable<[string, () => Promise<unknown>]>} tasks
 * @param {{ limitMs: number, log?: (fields: ExitWorkLine) => void }} options
 * @returns {Promise<boolean>} whether it all finished within the limit
 */
export async function runExitWork(tasks, { limitMs, log = logError }) {
  const all = (async () => {
    for (const [name, task] of tasks) {
      try {
        await task();
      } catch (error) {
        log({ event: "exit_work_failed", task: name, message: format(error) });
      }
    }
    return true;
  })();
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const limit = new Promise((resolve) => (timer = setTimeout(() => resolve(false), limitMs)));
  const finished = /** @type {boolean} */ (await Promise.race([all, limit]));
  clearTimeout(timer);
  if (!finished) log({ event: "exit_work_unfinished", limitMs });
  return finished;
}
