import type { AttemptResult } from "./post-json";

/**
 * Worth another try: the receiver may answer next time (n8n that was
 * starting up, too). A 4xx other than 408 and 429 will not change by itself,
 * nor will a redirect.
 */
export function isTransient(result: AttemptResult) {
  if (result.ok) return false;
  if (result.reason === "network" || result.reason === "timeout" || result.reason === "unready") return true;
  return result.reason === "status" && (result.status === 408 || result.status === 429 || result.status >= 500);
}

/** Exponential backoff with jitter, so retrying servers do not stampede together. */
export function backoffMs(retry: number, baseMs: number) {
  const ceiling = baseMs * 2 ** (retry - 1);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** When the lead's next redelivery is due after `rounds` failed ones, or undefined when the schedule is spent. */
export function nextAttemptAfter(rounds: number, schedule: readonly number[], now: number) {
  const delay = schedule[rounds];
  return delay === undefined ? undefined : now + delay * 1000;
}
