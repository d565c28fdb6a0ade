import "server-only";
import { logLine } from "@/server/escape-controls.mjs";

type Level = "info" | "warn" | "error";

// One JSON line per event, facts only, never a visitor's personal data. Control and format characters are written as
// JSON escapes, so a line read in a terminal cannot act on the screen or reorder what is read.
export function logEvent(level: Level, fields: Record<string, unknown>) {
  const line = logLine(level, fields);
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.info(line);
}

/** What a caught value says, for a log line's `message`. */
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
