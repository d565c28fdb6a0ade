import "server-only";
import { formatWithOptions } from "node:util";
import { escapeControlsInJson } from "@/server/escape-controls";

type Method = "error" | "warn" | "info" | "log";
const levels: Record<Method, "error" | "warn" | "info"> = { error: "error", warn: "warn", info: "info", log: "info" };

/** A line logEvent wrote: one JSON object, passed on as it is. */
const isEventLine = (args: unknown[]) =>
  args.length === 1 && typeof args[0] === "string" && args[0].startsWith('{"time":');

/**
 * Makes every line the server prints one JSON object, Next's own included (a
 * malformed action post, a render that threw): the operator's log drain reads
 * one event per line, and a stack's lines would be read as events of their
 * own. Lines logEvent wrote pass through; any other is written as
 * `{"time","level","event":"framework","message"}`, the message as
 * util.format prints it (an error with its stack), escaped as every log line
 * is. Installed once, by instrumentation.ts, in production.
 */
export function jsonFrameworkLogs(target: Pick<Console, Method> = console) {
  for (const method of Object.keys(levels) as Method[]) {
    const write = target[method].bind(target);
    target[method] = (...args: unknown[]) => {
      if (isEventLine(args)) return write(...args);
      const message = formatWithOptions({ colors: false }, ...args);
      write(
        escapeControlsInJson(
          JSON.stringify({ time: new Date().toISOString(), level: levels[method], event: "framework", message }),
        ),
      );
    };
  }
}
