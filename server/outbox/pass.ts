import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import { logEvent } from "@/server/log";

// Failures in a row to one receiver after which a pass leaves it alone: what
// waits for it keeps its place for the next pass.
export const PAUSE_AFTER_FAILURES = 3;

// The longest nap while waiting for a pace's slot: a stopping server is not kept waiting.
const NAP_MS = 250;

/** What a kind of delivery's next step is, as its adapter finds it. */
export type Step<Item, State extends string> =
  /** Nothing is due. */
  | undefined
  /** Claimed: `id` is its webhook-id, `receiver` where it goes. */
  | { claimed: Item; id: string; receiver: string }
  /** Settled without a send (an invitation skipped, put to wait for its hours): counted. */
  | { settled: State }
  /** The pace allows nothing before this time (ms since the epoch). */
  | { waitUntil: number };

/**
 * One kind of delivery (leads, invitations), as the pass loop drives it:
 * how to take the next item due, and how to send one. Each kind keeps its
 * rows and its rules (what is due, consent, hours, the pace) to itself.
 */
export type DeliveryKind<Item, State extends string> = {
  /** Every state `send` and `next` can report, each counted from 0. */
  states: readonly State[];
  /** The next step, leaving out what this pass sent already and the receivers it paused. */
  next(skip: { sent: readonly string[]; paused: readonly string[] }): Promise<Step<Item, State>>;
  /** Sends one claimed item: where it stands now, and whether its receiver answered (undefined: it was not called). */
  send(item: Item): Promise<{ state: State; answered?: boolean }>;
};

export type PassSummary<State extends string> = Record<State, number> & {
  /** Receivers that failed PAUSE_AFTER_FAILURES times in a row: not called again in this pass. */
  paused: string[];
  /** The pass stopped starting sends because its time budget was spent. */
  budgetSpent: boolean;
};

export type PassLimits = {
  /** How many sends at once. */
  concurrency: number;
  /** No send starts once this is spent (ms). */
  budgetMs: number;
  /** True once the server is stopping: the pass claims nothing more, and finishes the sends it started. */
  stopping?: () => boolean;
};

/** A pass that sent nothing: every state at 0. */
export const nothingSent = <State extends string>(states: readonly State[]): PassSummary<State> =>
  ({
    ...Object.fromEntries(states.map((state) => [state, 0])),
    paused: [],
    budgetSpent: false,
  }) as PassSummary<State>;

/**
 * The one pass loop under every kind of delivery: takes what is due,
 * `concurrency` at a time, each claimed by the kind's `next` so that no other
 * pass, instance or visitor sends it too, and sends it; each item at most
 * once a pass. It waits for a pace's slot in short naps, starts nothing once
 * `budgetMs` is spent or the server stops, and leaves alone a receiver that
 * failed PAUSE_AFTER_FAILURES times in a row.
 */
export async function runPass<Item, State extends string>(
  kind: DeliveryKind<Item, State>,
  { concurrency, budgetMs, stopping = () => false }: PassLimits,
): Promise<PassSummary<State>> {
  const summary = nothingSent(kind.states);
  // The counts, by state: a PassSummary's own keys are the states and two more.
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
        // The slot, unless the budget ends first.
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
