// @ts-check
import { format } from "node:util";
import { logLine } from "./escape-controls.mjs";

/** @typedef {"error" | "warn" | "info" | "log"} Method */
/** @type {Record<Method, "error" | "warn" | "info">} */
const levels = { error: "error", warn: "warn", info: "info", log: "info" };
// Next's colour codes around its own words are noise in a log drain.
const colours = /\u001b\[[0-9;]*m/g;
// npm start wraps the console before Next loads, instrumentation.ts again under next start.
const wrapped = Symbol.for("sous.json-framework-logs");

/** @param {unknown[]} args */
const isEventLine = (args) => args.length === 1 && typeof args[0] === "string" && args[0].startsWith('{"time":');

/**
 * Every line the server prints is one JSON object, Next's own included: a log drain reads one event per line, and a
 * stack's lines would be read as events of their own.
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
