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

// A post that sent nothing (a repeat, a sign-up waiting for START) is answered no sooner than one of the form's recent
// deliveries, drawn at random, so its timing tells no one about the number; never past `deadlineMs`.
export async function paceLikeDelivery(form: string, elapsedMs: number, deadlineMs: number) {
  const durations = recent.get(form);
  const like = durations?.length ? durations[Math.floor(Math.random() * durations.length)]! : FIRST_GUESS_MS;
  const wait = Math.min(like, deadlineMs) - elapsedMs;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
