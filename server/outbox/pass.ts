import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import { logEvent } from "@/server/log";

// Failures in a row after which a pass leaves a receiver alone; what waits for it keeps its place.
export const PAUSE_AFTER_FAILURES = 3;

// A stopping server is not kept waiting for a pace's slot.
const NAP_MS = 250;

export type Step<Item, State extends string> =
  | undefined
  | { claimed: Item; id: string; receiver: string }
  /** Settled without a send (an invitation skipped, put to wait for its hours): counted. */
  | { settled: State }
  | { waitUntil: number };

/** A kind of delivery as the pass drives it; each keeps its rows and its rules (what is due, consent, hours, pace). */
export type DeliveryKind<Item, State extends string> = {
  states: readonly State[];
  next(skip: { sent: readonly string[]; paused: readonly string[] }): Promise<Step<Item, State>>;
  /** `answered` undefined: its receiver was not called. */
  send(item: Item): Promise<{ state: State; answered?: boolean }>;
};

export type PassSummary<State extends string> = Record<State, number> & {
  paused: string[];
  budgetSpent: boolean;
};

export type PassLimits = {
  concurrency: number;
  budgetMs: number;
  stopping?: () => boolean;
};

export const nothingSent = <State extends string>(states: readonly State[]): PassSummary<State> =>
  ({
    ...Object.fromEntries(states.map((state) => [state, 0])),
    paused: [],
    budgetSpent: false,
  }) as PassSummary<State>;

/** Each item claimed by the kind's `next`, so no other pass, instance or visitor sends it too, and sent at most once a pass. */
export async function runPass<Item, State extends string>(
  kind: DeliveryKind<Item, State>,
  { concurrency, budgetMs, stopping = () => false }: PassLimits,
): Promise<PassSummary<State>> {
  const summary = nothingSent(kind.states);
  const counts = summary as Record<State, number>;
  const began = performance.now();
  const left = () => budgetMs - (performance.now() - began);
  const failuresInARow = new Map<string, number>();
  const sent: string[] = [];

  const worker = async () => {
    for (;;) {
      if (left() <= 0) {
        summary.budgetSpent = true;
        return;
      }
      if (stopping()) return;
      const step = await kind.next({ sent, paused: summary.paused });
      if (!step) return;
      if ("waitUntil" in step) {
        const wait = step.waitUntil - Date.now();
        if (wait > left()) {
          summary.budgetSpent = true;
          return;
        }
        await sleep(Math.min(wait, NAP_MS));
        continue;
      }
      if ("settled" in step) {
        counts[step.settled] += 1;
        continue;
      }
      sent.push(step.id);
      const { state, answered } = await kind.send(step.claimed);
      counts[state] += 1;
      if (answered === undefined) continue;
      const failures = answered ? 0 : (failuresInARow.get(step.receiver) ?? 0) + 1;
      failuresInARow.set(step.receiver, failures);
      if (failures >= PAUSE_AFTER_FAILURES && !summary.paused.includes(step.receiver)) {
        summary.paused.push(step.receiver);
        logEvent("warn", { event: "receiver_paused", form: step.receiver, failuresInARow: failures });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return summary;
}
