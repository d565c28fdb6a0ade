import "server-only";
import { logLine } from "@/server/escape-controls.mjs";

type Level = "info" | "warn" | "error";

/**
 * One JSON line per event on stdout/stderr, for the operator's log drain.
 * Callers pass facts, never a visitor's personal data. Every control and
 * format character (C0, C1, bidi overrides, zero-width marks) is written as
 * JSON's own escape, so a line read in a terminal or a viewer shows what a
 * request carried and cannot act on the screen or reorder what is read; a
 * JSON reader gets the same values back.
 */
export function logEvent(level: Level, fields: Record<string, unknown>) {
  const line = logLine(level, fields);
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.info(line);
}

/** What a caught value says, for a log line's `message`. */
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
