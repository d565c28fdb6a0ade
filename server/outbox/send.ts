import "server-only";
import type { Updateable } from "kysely";
import type { Store } from "@/server/db/connect";
import type { LeadState, LeadsTable } from "@/server/db/schema";
import type { ServerEnv, WebhookSettings } from "@/server/env";
import { logEvent } from "@/server/log";
import { leadFacts, sendable, type LeadRow } from "./lead";
import type { Outcome } from "@/server/outbox/outcomes";
import { noteOutcome } from "@/server/outbox/alerts";
import { settle, type AttemptRecord } from "./lead-store";
import { storeAnswered, storeFailed } from "@/server/outbox/store-outage";
import { type Claim } from "@/server/outbox/claims";
import { failureOf } from "@/server/outbox/failures";
import type { AttemptResult } from "@/server/outbox/post-json";
import { backoffMs, isTransient, nextRound } from "@/server/outbox/retry-policy";
import { postSigned } from "@/server/outbox/signed-post";

type Failure = Exclude<AttemptResult, { ok: true }>;

export type Sender = "visitor" | "pass" | "operator" | "probe";

export type Delivery = {
  webhookId: string;
  /** held: no webhook URL is set; repeat: the number was on the list already; awaiting_start: it waits for a START. */
  via: "webhook" | "held" | "repeat" | "awaiting_start";
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

export type Sent = { state: Exclude<LeadState, "revoked" | "awaiting_start"> | "unreadable"; delivery: Delivery };

const MIN_ATTEMPT_MS = 250;

/** The visitor's sender retries transient failures with backoff within WEBHOOK_DEADLINE_MS; a pass or the operator makes one attempt. */
async function attemptAll({
  webhook,
  lead: { id, payload: body, attempts, created_at: createdAt },
  env,
  sender,
  started,
}: {
  webhook: WebhookSettings & { url: string };
  lead: Pick<LeadRow, "id" | "attempts" | "created_at"> & { payload: string };
  env: ServerEnv;
  sender: Sender;
  started: number;
}) {
  const left = () => env.WEBHOOK_DEADLINE_MS - (performance.now() - started);
  const records: AttemptRecord[] = [];
  for (;;) {
    const timeoutMs =
      sender === "visitor" ? Math.min(env.WEBHOOK_ATTEMPT_TIMEOUT_MS, left()) : env.WEBHOOK_ATTEMPT_TIMEOUT_MS;
    const at = Date.now();
    // After any earlier attempt, the receiver may have acted on it: the lead's own time bounds where to look.
    const redeliverySince = attempts + records.length > 0 ? createdAt : undefined;
    const result = await postSigned(webhook, {
      webhookId: id,
      body,
      timeoutMs: Math.max(1, Math.round(timeoutMs)),
      redeliverySince,
    });
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

/** The visitor's failure keeps its place in the schedule, or starts it. */
function afterFailure(lead: LeadRow, sender: Sender, env: ServerEnv, now: number): Updateable<LeadsTable> {
  if (sender === "visitor") {
    const keepsPlace = lead.state === "pending" && lead.attempts > 0;
    return {
      state: "pending",
      ...(lead.state === "dead" ? { rounds: 0 } : {}),
      next_attempt_at: keepsPlace ? lead.next_attempt_at : now + env.REDELIVERY_SCHEDULE_SECONDS[0]! * 1000,
    };
  }
  const schedule = env.REDELIVERY_SCHEDULE_SECONDS;
  const { rounds, next } = nextRound(lead, { probe: sender === "probe", schedule, now });
  return next === undefined ? { state: "dead", rounds } : { state: "pending", rounds, next_attempt_at: next };
}

export type Claimed = {
  /** Undefined only when the database failed to keep a contact request: sent once, never redelivered. */
  store: Store | undefined;
  row: LeadRow;
  claim: Claim;
  env: ServerEnv;
  sender: Sender;
  started?: number;
};

/** A store that fails is logged once per outage and never keeps the visitor's answer. */
async function recordSettlement(
  { store, row, claim }: Claimed,
  change: Updateable<LeadsTable>,
  records: AttemptRecord[],
) {
  if (!store) return false;
  try {
    await settle(store, { lead: row, claim, change, attempts: records });
    await store.durable();
    storeAnswered();
    return true;
  } catch (error) {
    storeFailed(error, { form: row.form, webhookId: row.id });
    return false;
  }
}

/** The one way a lead is sent, by every sender holding its claim. Every attempt goes into the delivery log. */
export async function sendClaimed(claimed: Claimed): Promise<Sent> {
  const { store, row: lead, env, sender, started = performance.now() } = claimed;
  if (!sendable(lead)) {
    // Never sent: a row this code did not write, or one that was damaged.
    logEvent("error", { event: "lead_unreadable", webhookId: lead.id, form: lead.form });
    await recordSettlement(claimed, { state: "dead", last_failure: "unreadable" }, []);
    return { state: "unreadable", delivery: deliveryOf(lead.id, started, { ok: false, reason: "unreadable" }) };
  }

  const tell = (outcome: Outcome, failure?: string) =>
    store && noteOutcome(store, { receiver: lead.form, outcome, env, failure });
  const webhook = env.webhooks[lead.form];
  if (!webhook.url) {
    await recordSettlement(claimed, { state: "held", next_attempt_at: lead.created_at }, []);
    tell("held");
    return { state: "held", delivery: deliveryOf(lead.id, started, { ok: true }, { via: "held" }) };
  }

  const { result, records } = await attemptAll({
    webhook: { ...webhook, url: webhook.url },
    lead,
    env,
    sender,
    started,
  });
  const now = Date.now();
  const sent = { ...lead, attempts: lead.attempts + records.length };
  const delivery = deliveryOf(lead.id, started, result, { attempts: records.length });
  if (result.ok) {
    await recordSettlement(
      claimed,
      { state: "delivered", delivered_at: now, dedupe_key: null, last_failure: null },
      records,
    );
    tell("delivered");
    if (sender !== "visitor")
      logEvent("info", { event: "lead_redelivered", ...leadFacts(sent, now), status: result.status });
    return { state: "delivered", delivery };
  }

  const change = { ...afterFailure(lead, sender, env, now), last_failure: failureOf(result) };
  const kept = await recordSettlement(claimed, change, records);
  if (kept) tell(change.state === "dead" ? "dead" : "pending", change.last_failure);
  if (change.state === "dead") {
    logEvent("error", { event: "lead_dead", ...leadFacts(sent, now), reason: change.last_failure });
    return { state: "dead", delivery };
  }
  const nextAttemptAt = new Date(change.next_attempt_at ?? lead.next_attempt_at).toISOString();
  // Not kept (the store failed): no redelivery will come, and lead_store_failed said so.
  if (kept)
    logEvent("warn", { event: "lead_pending", ...leadFacts(sent, now), reason: change.last_failure, nextAttemptAt });
  return { state: "pending", delivery };
}
