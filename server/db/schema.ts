import type { Generated } from "kysely";

/**
 * The tables, as both engines hold them. Times are milliseconds since the
 * epoch in a BIGINT (read back as numbers): one type for SQLite and Postgres,
 * compared and indexed as plain integers.
 */

/** pending: waiting for its next attempt; held: no webhook URL was set; dead: the schedule is spent; delivered: acknowledged. */
export const leadStates = ["pending", "held", "dead", "delivered"] as const;
export type LeadState = (typeof leadStates)[number];

export type LeadsTable = {
  /** The webhook-id every attempt carries: receivers drop duplicates by it. */
  id: string;
  form: string;
  /** sha256 of the form and its values while the lead is open, so a visitor's retry finds it; NULL once delivered. */
  dedupe_key: string | null;
  /** The webhook body as JSON, exactly as first sent; NULL once LEAD_RETENTION_DAYS have passed after delivery. */
  payload: string | null;
  state: LeadState;
  attempts: Generated<number>;
  /** Redelivery rounds after the first failure: the lead's place in the schedule. */
  rounds: Generated<number>;
  created_at: number;
  next_attempt_at: number;
  last_failure: string | null;
  delivered_at: number | null;
  /** The claim: who is sending it and until when. An expired claim is free to take. */
  claimed_by: string | null;
  claimed_until: number | null;
};

/** The delivery log: one row per HTTP attempt. It outlives the payload. */
export type LeadAttemptsTable = {
  lead_id: string;
  /** 1 for the lead's first attempt, and so on. */
  number: number;
  at: number;
  /** The receiver's HTTP status, when it answered. */
  status: number | null;
  /** Empty for a 2xx; else status, redirect, timeout or network. */
  failure: string | null;
  duration_ms: number;
  /** Who sent it: visitor, pass or operator. */
  sender: string;
};

export type Database = {
  leads: LeadsTable;
  lead_attempts: LeadAttemptsTable;
};
