import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import type { Updateable } from "kysely";
import { inTransaction, type Store } from "@/server/db/connect";
import type { OutboxTable } from "@/server/db/schema";
import type { ServerEnv } from "@/server/env";
import { logEvent } from "@/server/log";
import { failingReceivers, reserveProbe } from "./alert-store";
import {
  CLAIM_MARGIN_MS,
  newClaim,
  type Claim,
  claimNext,
  claimRow,
  nextDue,
  release,
  setUnclaimed,
  type Due,
  type OutboxRow,
  type OutboxState,
} from "./outbox-store";
import { sendClaimed, type Kind, type Sender } from "./send";

// Failures in a row after which a pass leaves a receiver alone; what waits for it keeps its place.
export const PAUSE_AFTER_FAILURES = 3;

// A stopping server is not kept waiting for a pace's slot.
const NAP_MS = 250;

type Step<Item, State extends string> =
  | undefined
  | { claimed: Item; id: string; receiver: string }
  /** Settled without a send (an invitation skipped, put to wait for its hours): counted. */
  | { settled: State }
  | { waitUntil: number };

/** What must hold before a row is sent: its kind's own data for the send, a state it ends in unsent, or a wait. */
export type Check<Own> =
  { own: Own } | { settled: OutboxState; change?: Updateable<OutboxTable> } | { waitUntil: number };

export type Taken<Own> = { row: OutboxRow; claim: Claim; own: Own };

/**
 * The row due first, claimed for the attempt's whole timeout and a margin, so no other pass, instance or visitor sends
 * it while the attempt may still answer. With a `check` of what must hold before it is sent, one transaction.
 */
export async function takeNext<Own = undefined>(
  store: Store,
  {
    due,
    timeoutMs,
    check,
  }: { due: Due; timeoutMs: number; check?: (tx: Store, row: OutboxRow) => Promise<Check<Own>> },
): Promise<Step<Taken<Own>, OutboxState>> {
  const held = () => newClaim(timeoutMs + CLAIM_MARGIN_MS);
  const taken = (row: OutboxRow, claim: Claim, own: Own) => ({
    claimed: { row, claim, own },
    id: row.id,
    receiver: row.receiver,
  });
  if (!check) {
    const claim = held();
    const row = await claimNext(store, due, claim);
    return row && taken(row, claim, undefined as Own);
  }
  return inTransaction(store, async (tx) => {
    const row = await nextDue(tx, due);
    if (!row) return undefined;
    const checked = await check(tx, row);
    if ("waitUntil" in checked) return checked;
    if ("settled" in checked) {
      await setUnclaimed(tx, row.id, { state: checked.settled, ...checked.change });
      return { settled: checked.settled };
    }
    const claim = held();
    await claimRow(tx, row.id, claim);
    return taken(row, claim, checked.own);
  });
}

export type PassSummary<State extends string> = Record<State, number> & {
  paused: string[];
  budgetSpent: boolean;
};

export const nothingSent = <State extends string>(states: readonly State[]): PassSummary<State> =>
  ({
    ...Object.fromEntries(states.map((state) => [state, 0])),
    paused: [],
    budgetSpent: false,
  }) as PassSummary<State>;

/** How a kind's pass goes: what is due, what must hold before each is sent, and the words its summary counts. */
export type Sending<Own, Outcome extends string> = {
  kind: Kind<Own>;
  due: (now: number) => Due;
  check?: (tx: Store, row: OutboxRow, env: ServerEnv) => Promise<Check<Own>>;
  outcomes: readonly Outcome[];
  outcome: (state: string) => Outcome;
};

const take = <Own>(store: Store, env: ServerEnv, { check }: Sending<Own, string>, due: Due) =>
  takeNext(store, {
    due,
    timeoutMs: env.WEBHOOK_ATTEMPT_TIMEOUT_MS,
    check: check && ((tx, row) => check(tx, row, env)),
  });

const send = async <Own, Outcome extends string>(
  store: Store,
  env: ServerEnv,
  sending: Sending<Own, Outcome>,
  taken: Taken<Own>,
  sender: Sender,
) => {
  const { state, answered, waitUntil } = await sendClaimed(sending.kind, { store, ...taken, env, sender });
  return { state: sending.outcome(state), answered, waitUntil };
};

/**
 * What is due, `concurrency` at a time, within `budgetMs`: each row sent at most once a pass, each receiver left alone
 * for the rest of it after failures in a row. A stopping server claims nothing more and finishes what it started.
 */
export async function sendDue<Own, Outcome extends string>(
  store: Store,
  env: ServerEnv,
  sending: Sending<Own, Outcome>,
  {
    concurrency,
    budgetMs,
    stopping = () => false,
    sender = "pass",
  }: { concurrency: number; budgetMs: number; stopping?: () => boolean; sender?: Sender },
): Promise<PassSummary<Outcome>> {
  const summary = nothingSent(sending.outcomes);
  const counts = summary as Record<Outcome, number>;
  const began = performance.now();
  const left = () => budgetMs - (performance.now() - began);
  const failuresInARow = new Map<string, number>();
  // A receiver whose texts budget is spent, until its window ends (not the pass's own budgetMs): its rows wait.
  const slots = new Map<string, number>();
  const sent: string[] = [];
  /** False when `until` is past the pass's own budget. */
  const nap = async (until: number) => {
    if (until - Date.now() > left()) return false;
    await sleep(Math.min(until - Date.now(), NAP_MS));
    return true;
  };

  const worker = async () => {
    for (;;) {
      if (left() <= 0) {
        summary.budgetSpent = true;
        return;
      }
      if (stopping()) return;
      const now = Date.now();
      const resting = (receiver: string) => summary.paused.includes(receiver) || (slots.get(receiver) ?? 0) > now;
      const { wanted, ...due } = sending.due(now);
      const step = await take(store, env, sending, {
        ...due,
        wanted: wanted.map((one) => ({ ...one, receivers: one.receivers.filter((r) => !resting(r)) })),
        skipIds: sent,
      });
      if (!step) {
        const opens = Math.min(...[...slots.values()].filter((at) => at > Date.now()));
        if (opens === Infinity || !(await nap(opens))) return;
        continue;
      }
      if ("waitUntil" in step) {
        if (await nap(step.waitUntil)) continue;
        summary.budgetSpent = true;
        return;
      }
      if ("settled" in step) {
        counts[sending.outcome(step.settled)] += 1;
        continue;
      }
      sent.push(step.id);
      const { state, answered, waitUntil } = await send(store, env, sending, step.claimed, sender);
      if (waitUntil !== undefined) {
        slots.set(step.receiver, waitUntil);
        sent.splice(sent.indexOf(step.id), 1);
        continue;
      }
      counts[state] += 1;
      // Undefined: no receiver was called (a held or unreadable row).
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

/**
 * A failing receiver's first row a failure put back, sent ahead of its schedule (failed, it keeps its place and spends
 * no round); answered, everything that waits for a later round is due now. Undefined when nothing waits.
 */
export async function probeReceiver<Own, Outcome extends string>(
  store: Store,
  env: ServerEnv,
  sending: Sending<Own, Outcome>,
  receiver: string,
) {
  const pending = sending.kind.words.pending;
  const step = await take(store, env, sending, {
    wanted: [{ receivers: [receiver], states: [pending] }],
    attempted: true,
  });
  if (!step) return undefined;
  if ("waitUntil" in step) return { state: "pace", answered: false };
  if ("settled" in step) return { state: sending.outcome(step.settled), answered: false };
  const { state, answered } = await send(store, env, sending, step.claimed, "probe");
  if (answered) await release(store, receiver, Date.now());
  return { state, answered: Boolean(answered) };
}

export type Probed = { form: string; state: string };

/**
 * After a few failed rounds the next attempt is hours away, however soon the receiver is back: so every
 * REDELIVERY_PROBE_SECONDS one instance probes each failing receiver of the kind that has its URL set.
 */
export async function probeFailing<Own, Outcome extends string>(
  store: Store,
  env: ServerEnv,
  sending: Sending<Own, Outcome>,
): Promise<Probed[]> {
  const probed: Probed[] = [];
  for (const { form } of await failingReceivers(store)) {
    if (!sending.kind.owns(form) || !sending.kind.webhook(env, form).url) continue;
    if (!(await reserveProbe(store, form, Date.now(), env.REDELIVERY_PROBE_SECONDS * 1000))) continue;
    const outcome = await probeReceiver(store, env, sending, form);
    if (!outcome) continue;
    logEvent(outcome.answered ? "info" : "warn", { event: "receiver_probed", form, outcome: outcome.state });
    probed.push({ form, state: outcome.state });
  }
  return probed;
}
