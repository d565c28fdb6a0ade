import "server-only";
import { inTransaction, type Store } from "@/server/db/connect";
import type { Receiver, ServerEnv, WebhookSettings } from "@/server/env";
import { logEvent } from "@/server/log";
import { noteOutcome, storeAnswered, storeFailed, type Outcome } from "./alerts";
import {
  reservePace,
  settle,
  type AttemptRecord,
  type Budget,
  type Claim,
  type OutboxRow,
  type OutboxState,
  WAITS_FOR_BUDGET,
} from "./outbox-store";
import { backoffMs, failureOf, isTransient, postSigned, type AttemptResult } from "./webhook";

type Failure = Exclude<AttemptResult, { ok: true }>;

export type Sender = "visitor" | "pass" | "operator" | "probe";

/**
 * A kind of thing the site sends (a lead, an invitation): which receivers are its own, what their answer means, and
 * its own table's part of a settlement. The engine claims, attempts, settles and retries every kind alike.
 */
export type Kind<Own = undefined> = {
  owns(receiver: string): boolean;
  /** Where its receiver is, read at each send: a setting rotated meanwhile is used at once. */
  webhook(env: ServerEnv, receiver: string): WebhookSettings;
  /**
   * A failure waits for its next round in `pending` or gives up in `dead`; without a URL, a row is `held`; an answer
   * is final; with a budget, past the day's, a row waits for an owner's decision in `overBudget`.
   */
  words: {
    pending: OutboxState;
    dead: OutboxState;
    held: OutboxState;
    answered: readonly OutboxState[];
    overBudget?: OutboxState;
  };
  /** What its receiver may be sent, every instance together: beyond it, a row waits for its slot. */
  budget?(env: ServerEnv, receiver: string): Budget | undefined;
  /** Read the answer's body, for `answer`. */
  readAnswer?: boolean;
  /** What a 2xx says: the state it ends in, or undefined when it says nothing (and is tried again). */
  answer(result: Extract<AttemptResult, { ok: true }>): OutboxState | undefined;
  /** Its own table's part of the settlement, in its transaction: the state the row ends in. */
  settling?(
    tx: Store,
    claimed: Claimed<Own>,
    settled: { state: OutboxState; result: AttemptResult; failure?: string },
  ): Promise<OutboxState>;
  /** An earlier attempt may have reached the receiver, though none was recorded: since when. */
  sentBefore?(claimed: Claimed<Own>): number | undefined;
  events: { pending: string; dead: string; redelivered?: string };
  /** Where it stands, for the operator's log: never a value. */
  facts(claimed: Claimed<Own>, now: number): Record<string, unknown>;
};

export type Claimed<Own = undefined> = {
  /** Undefined only when the database failed to keep a contact request: sent once, never redelivered. */
  store: Store | undefined;
  row: OutboxRow;
  claim: Claim;
  own: Own;
  env: ServerEnv;
  sender: Sender;
  started?: number;
};

export type Delivery = {
  webhookId: string;
  /** held: no webhook URL is set; budget: it waits for a slot of its receiver's budget; repeat: the number was on the
   * list already; awaiting_start: it waits for a START. */
  via: "webhook" | "held" | "budget" | "repeat" | "awaiting_start";
  attempts: number;
  durationMs: number;
} & (
  | { ok: true; status?: number }
  | { ok: false; reason: Failure["reason"] | "busy" | "unreadable" | "unrecorded"; status?: number }
);

type SenderAnswer =
  { ok: true; status?: number } | { ok: false; reason: Extract<Delivery, { ok: false }>["reason"]; status?: number };

export function deliveryOf(
  webhookId: string,
  started: number,
  answer: SenderAnswer,
  { via = "webhook", attempts = 0 }: { via?: Delivery["via"]; attempts?: number } = {},
): Delivery {
  return { webhookId, via, attempts, durationMs: Math.round(performance.now() - started), ...answer };
}

/** `answered`: its receiver said what became of it; undefined when no receiver was called. */
export type Sent = { state: OutboxState | "unreadable"; answered?: boolean; waitUntil?: number; delivery: Delivery };

const MIN_ATTEMPT_MS = 250;

// JSON.parse(null) is null: a row emptied by retention reads as no object, like any other.
export function objectOf(json: string | null) {
  try {
    const value: unknown = JSON.parse(json as string);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A row this site wrote and may send: a receiver of its kind, a webhook-id, a payload that is a JSON object. */
export const sendable = (kind: Pick<Kind<never>, "owns">, row: OutboxRow) =>
  kind.owns(row.receiver) && /^msg_[\w-]+$/.test(row.id) && objectOf(row.payload) !== undefined;

/** The visitor's sender retries transient failures with backoff within WEBHOOK_DEADLINE_MS; any other makes one attempt. */
async function attemptAll<Own>(kind: Kind<Own>, claimed: Claimed<Own>, started: number) {
  const { row, env, sender } = claimed;
  const webhook = kind.webhook(env, row.receiver);
  const left = () => env.WEBHOOK_DEADLINE_MS - (performance.now() - started);
  const records: AttemptRecord[] = [];
  for (;;) {
    const timeoutMs =
      sender === "visitor" ? Math.min(env.WEBHOOK_ATTEMPT_TIMEOUT_MS, left()) : env.WEBHOOK_ATTEMPT_TIMEOUT_MS;
    const at = Date.now();
    // After any earlier attempt, the receiver may have acted on it: the row's own time bounds where to look.
    const redeliverySince = row.attempts + records.length > 0 ? row.created_at : kind.sentBefore?.(claimed);
    const result = await postSigned(
      { ...webhook, url: webhook.url! },
      {
        webhookId: row.id,
        body: row.payload!,
        timeoutMs: Math.max(1, Math.round(timeoutMs)),
        readAnswer: kind.readAnswer,
        redeliverySince,
      },
    );
    records.push({
      at,
      status: "status" in result ? result.status : null,
      failure: result.ok ? null : result.reason,
      duration_ms: Date.now() - at,
      sender,
    });
    if (sender !== "visitor" || !isTransient(result) || records.length > env.WEBHOOK_MAX_RETRIES)
      return { result, records };

    const delay = backoffMs(records.length, env.WEBHOOK_RETRY_BASE_MS);
    if (left() - delay < MIN_ATTEMPT_MS) return { result, records };
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
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

/** The visitor's failure keeps its place in the schedule, or starts it; a probe's keeps its place and spends no round. */
function afterFailure<Own>(kind: Kind<Own>, { row, sender, env }: Claimed<Own>, now: number) {
  const { pending, dead } = kind.words;
  if (sender === "visitor") {
    const keepsPlace = row.state === pending && row.attempts > 0;
    return {
      state: pending,
      ...(row.state === dead ? { rounds: 0 } : {}),
      next_attempt_at: keepsPlace ? row.next_attempt_at : now + env.REDELIVERY_SCHEDULE_SECONDS[0]! * 1000,
    };
  }
  const schedule = env.REDELIVERY_SCHEDULE_SECONDS;
  const { rounds, next } = nextRound(row, { probe: sender === "probe", schedule, now });
  return next === undefined ? { state: dead, rounds } : { state: pending, rounds, next_attempt_at: next };
}

/** A store that fails is logged once per outage and never keeps the visitor's answer; the state the row ended in. */
export async function settleClaimed<Own>(
  kind: Kind<Own>,
  claimed: Claimed<Own>,
  change: Parameters<typeof settle>[1]["change"],
  { records, result }: { records: AttemptRecord[]; result?: AttemptResult },
) {
  const { store, row, claim } = claimed;
  if (!store) return undefined;
  try {
    const state = await inTransaction(store, async (tx) => {
      const state =
        result && kind.settling
          ? await kind.settling(tx, claimed, { state: change.state, result, failure: change.last_failure ?? undefined })
          : change.state;
      await settle(tx, { row, claim, change: { ...change, state }, answered: kind.words.answered, attempts: records });
      return state;
    });
    await store.durable();
    storeAnswered();
    return state;
  } catch (error) {
    storeFailed(error, { form: row.receiver, webhookId: row.id });
    return undefined;
  }
}

/** Undefined once a slot is taken, else when the next opens. A store failing here does not hold a claimed row back. */
async function spendBudget(store: Store, receiver: string, budget: Budget) {
  try {
    const pace = await reservePace(store, receiver, Date.now(), budget);
    if ("opensAt" in pace) return pace;
    if (pace.taken === Math.ceil(budget.perDay * 0.8))
      logEvent("warn", { event: "daily_budget_80", form: receiver, used: pace.taken, limit: budget.perDay });
  } catch (error) {
    storeFailed(error, { form: receiver });
  }
  return undefined;
}

/** The one way anything is sent, by every sender holding its claim. */
export async function sendClaimed<Own>(kind: Kind<Own>, claimed: Claimed<Own>): Promise<Sent> {
  const { store, row, env, sender, started = performance.now() } = claimed;
  const receiver = row.receiver as Receiver;
  const tell = (outcome: Outcome, failure?: string) => store && noteOutcome(store, { receiver, outcome, env, failure });
  if (!sendable(kind, row)) {
    // Never sent: a row this code did not write, or one that was damaged.
    logEvent("error", { event: "lead_unreadable", webhookId: row.id, form: row.receiver });
    await settleClaimed(kind, claimed, { state: kind.words.dead, last_failure: "unreadable" }, { records: [] });
    return { state: "unreadable", delivery: deliveryOf(row.id, started, { ok: false, reason: "unreadable" }) };
  }
  if (!kind.webhook(env, receiver).url) {
    await settleClaimed(kind, claimed, { state: kind.words.held, next_attempt_at: row.created_at }, { records: [] });
    tell("held");
    return { state: kind.words.held, delivery: deliveryOf(row.id, started, { ok: true }, { via: "held" }) };
  }

  // Only a first attempt may text: a redelivery is sent under the same webhook-id, which the workflow sends once. An
  // operator's retry is theirs to decide.
  const budget = store && row.attempts === 0 && sender !== "operator" && kind.budget?.(env, receiver);
  if (budget) {
    const slot = await spendBudget(store, receiver, budget);
    if (slot !== undefined) {
      const delivery = deliveryOf(row.id, started, { ok: true }, { via: "budget" });
      // A day's budget spent is a flood to judge, not a queue for tomorrow: it waits for an owner.
      if (slot.dayFull && kind.words.overBudget) {
        await settleClaimed(kind, claimed, { state: kind.words.overBudget }, { records: [] });
        tell("over_budget");
        return { state: kind.words.overBudget, delivery };
      }
      const change = { state: kind.words.pending, next_attempt_at: slot.opensAt, last_failure: WAITS_FOR_BUDGET };
      await settleClaimed(kind, claimed, change, { records: [] });
      return { state: kind.words.pending, waitUntil: slot.opensAt, delivery };
    }
  }

  const { result, records } = await attemptAll(kind, claimed, started);
  const now = Date.now();
  const sent = { ...claimed, row: { ...row, attempts: row.attempts + records.length } };
  const delivery = deliveryOf(row.id, started, result, { attempts: records.length });
  const answer = result.ok ? kind.answer(result) : undefined;
  if (answer) {
    const change = { state: answer, delivered_at: now, dedupe_key: null, last_failure: null };
    await settleClaimed(kind, claimed, change, { records, result });
    tell("delivered");
    if (sender !== "visitor" && kind.events.redelivered)
      logEvent("info", { event: kind.events.redelivered, ...kind.facts(sent, now), status: delivery.status });
    return { state: answer, answered: true, delivery };
  }

  // A 2xx that says nothing is no answer: sent again under its webhook-id, a receiver that did act answers that it did.
  const failure = result.ok ? `unconfirmed ${result.status}` : failureOf(result)!;
  const change = { ...afterFailure(kind, claimed, now), last_failure: failure };
  const state = await settleClaimed(kind, claimed, change, { records, result });
  if (state !== undefined) tell(state === kind.words.dead ? "dead" : "pending", failure);
  const facts = { ...kind.facts(sent, now), reason: failure };
  const ended = state ?? change.state;
  if (ended === kind.words.dead) logEvent("error", { event: kind.events.dead, ...facts });
  // Not kept (the store failed): no redelivery will come, and the store's failure said so.
  else if (state === kind.words.pending)
    logEvent("warn", {
      event: kind.events.pending,
      ...facts,
      nextAttemptAt: new Date(
        "next_attempt_at" in change ? change.next_attempt_at! : row.next_attempt_at,
      ).toISOString(),
    });
  return { state: ended, answered: false, delivery };
}
