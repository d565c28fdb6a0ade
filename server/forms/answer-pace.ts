import "server-only";
import { processWide } from "@/server/process-wide";

// How many of a form's recent deliveries a post that sent nothing takes its time from.
const KEPT = 32;
// Until a form has delivered once in this process: about what a webhook that answers at once costs a post here.
export const FIRST_GUESS_MS = 150;

const recent = processWide("answer-pace", () => new Map<string, number[]>());

/** Notes how long a post took whose lead went to the form's webhook, from its start to its answer. */
export function noteDelivered(form: string, ms: number) {
  const durations = recent.get(form) ?? [];
  durations.push(ms);
  if (durations.length > KEPT) durations.shift();
  recent.set(form, durations);
}

/**
 * Holds the answer to a post that sent nothing (a number already on the list,
 * a sign-up kept until its phone texts START) until it has taken as long as
 * one of the form's recent deliveries, drawn at random: its timing tells no
 * one whether the number was on the list or once replied STOP. Never past
 * `deadlineMs`, the visitor's own limit.
 */
export async function paceLikeDelivery(form: string, elapsedMs: number, deadlineMs: number) {
  const durations = recent.get(form);
  const like = durations?.length ? durations[Math.floor(Math.random() * durations.length)]! : FIRST_GUESS_MS;
  const wait = Math.min(like, deadlineMs) - elapsedMs;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
