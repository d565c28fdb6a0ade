// @ts-check
import { format } from "node:util";
import { logLine } from "./escape-controls.mjs";

/** @typedef {"error" | "warn" | "info" | "log"} Method */
/** @type {Record<Method, "error" | "warn" | "info">} */
const levels = { error: "error", warn: "warn", info: "info", log: "info" };
// The terminal's colour codes Next writes around its own words ("\u001b[32m✓\u001b[39m"): noise in a log drain.
const colours = /\u001b\[[0-9;]*m/g;
// Marks a console already wrapped: npm start wraps it before Next loads, instrumentation.ts again under next start.
const wrapped = Symbol.for("sous.json-framework-logs");

/**
 * A line logEvent wrote: one JSON object, passed on as it is.
 * @param {unknown[]} args
 */
const isEventLine = (args) => args.length === 1 && typeof args[0] === "string" && args[0].startsWith('{"time":');

/**
 * Makes every line the server prints one JSON object, Next's own included (a
 * malformed action post, a render that threw, "Running next.config.ts"): the
 * operator's log drain reads one event per line, and a stack's lines would be
 * read as events of their own. Lines logEvent wrote pass through; any other
 * is written as `{"time","level","event":"framework","message"}`, the message
 * as util.format prints it (an error with its stack), escaped as every log
 * line is. Plain JavaScript, so that scripts/start.mjs installs it before
 * Next prints its first line; instrumentation.ts installs it too (under
 * `next start`), once per console.
 * @param {Pick<Console, Method>} [target]
 */
export function jsonFrameworkLogs(target = console) {
  const marked = /** @type {Record<symbol, boolean>} */ (/** @type {unknown} */ (target));
  if (marked[wrapped]) return;
  marked[wrapped] = true;
  for (const method of /** @type {Method[]} */ (Object.keys(levels))) {
    const write = target[method].bind(target);
    target[method] = (/** @type {unknown[]} */ ...args) => {
      if (isEventLine(args)) return write(...args);
      const message = format(...args).replace(colours, "");
      write(logLine(levels[method], { event: "framework", message }));
    };
  }
}
