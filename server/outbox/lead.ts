import "server-only";
import { createHash } from "node:crypto";
import type { Selectable } from "kysely";
import type { LeadState, LeadsTable } from "@/server/db/schema";
import { isFormName, type FormName } from "@/lib/forms";

export type LeadRow = Selectable<LeadsTable>;

/** A lead as the delivery code reads it: a row whose form is ours and whose payload is an object. */
export type Lead = {
  /** The webhook-id every attempt carries, so the receiver drops duplicates. */
  id: string;
  form: FormName;
  /** The webhook's values. */
  payload: Record<string, unknown>;
  /** The webhook body: the bytes the first attempt sent and every redelivery sends again. */
  body: string;
  state: LeadState;
  /** HTTP attempts made so far, by the visitor, the passes and the operator. */
  attempts: number;
  /** Redelivery rounds done after the first failure: the position in the schedule. */
  rounds: number;
  createdAt: number;
  nextAttemptAt: number;
  lastFailure?: string;
};

function objectOf(json: string | null) {
  if (!json) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The lead a row holds, or undefined for a row nobody should send: a foreign form, a bad id, a payload that is not a JSON object. */
export function leadOf(row: LeadRow): Lead | undefined {
  const payload = objectOf(row.payload);
  if (!payload || !row.payload || !isFormName(row.form) || !/^msg_[\w-]+$/.test(row.id)) return undefined;
  return {
    id: row.id,
    form: row.form,
    payload,
    body: row.payload,
    state: row.state,
    attempts: row.attempts,
    rounds: row.rounds,
    createdAt: row.created_at,
    nextAttemptAt: row.next_attempt_at,
    ...(row.last_failure ? { lastFailure: row.last_failure } : {}),
  };
}

/**
 * The row that keeps a lead, undelivered and claimed by no one: leadOf's
 * inverse. Its form is any name, for the upgrade import's leads of old.
 */
export function rowOf(
  lead: Pick<Lead, "id" | "body" | "state" | "attempts" | "rounds" | "createdAt" | "nextAttemptAt" | "lastFailure"> & {
    form: string;
  },
  dedupeKey: string | null,
): LeadRow {
  return {
    id: lead.id,
    form: lead.form,
    dedupe_key: dedupeKey,
    payload: lead.body,
    state: lead.state,
    attempts: lead.attempts,
    rounds: lead.rounds,
    created_at: lead.createdAt,
    next_attempt_at: lead.nextAttemptAt,
    last_failure: lead.lastFailure ?? null,
    delivered_at: null,
    claimed_by: null,
    claimed_until: null,
  };
}

/** The same form with the same values (already normalised by the schema) has the same key. */
export function leadKey(form: string, payload: Record<string, unknown>) {
  return createHash("sha256")
    .update(`${form}\n${JSON.stringify(payload)}`)
    .digest("hex");
}

/** Where a lead stands, for the operator's log: no values. */
export function leadFacts(lead: Pick<Lead, "form" | "id" | "attempts" | "createdAt">, now = Date.now()) {
  return {
    form: lead.form,
    webhookId: lead.id,
    attempts: lead.attempts,
    ageSeconds: Math.round((now - lead.createdAt) / 1000),
  };
}
