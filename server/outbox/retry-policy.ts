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

/**
 * Where a lead or an invitation goes after a failed attempt: a round on, due
 * after that round's delay, or spent (`next` undefined) once the schedule
 * is. A probe's failure keeps its place: sent ahead of its schedule, it spends none of it.
 */
export function nextRound(
  item: { rounds: number; next_attempt_at: number },
  { probe, schedule, now }: { probe: boolean; schedule: readonly number[]; now: number },
): { rounds: number; next: number | undefined } {
  if (probe) return { rounds: item.rounds, next: item.next_attempt_at };
  const rounds = item.rounds + 1;
  const delay = schedule[rounds];
  return { rounds, next: delay === undefined ? undefined : now + delay * 1000 };
}
