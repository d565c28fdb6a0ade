import "server-only";

type Level = "info" | "warn" | "error";

/**
 * One JSON line per event on stdout/stderr, for the operator's log drain.
 * Callers pass facts, never a visitor's personal data.
 */
export function logEvent(level: Level, fields: Record<string, unknown>) {
  const line = JSON.stringify({ time: new Date().toISOString(), level, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.info(line);
}

/** What a caught value says, for a log line's `message`. */
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
