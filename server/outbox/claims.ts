import "server-only";
import { randomUUID } from "node:crypto";
import type { ExpressionBuilder } from "kysely";
import type { Database } from "@/server/db/schema";

/**
 * Who holds a delivery (a lead, an invitation), and until when: a sender
 * claims a row before it posts it, so no other pass, instance or visitor
 * sends it too; a claim left by a process that died runs out and is taken over.
 */
export type Claim = { token: string; until: number };

// A claim outlives its sender's longest wait by this much.
export const CLAIM_MARGIN_MS = 5_000;

/** A claim of `ms` from `now`. */
export const newClaim = (ms: number): Claim => ({ token: randomUUID(), until: Date.now() + ms });

/** A fresh webhook-id: one per delivery, kept by every attempt and every redelivery, so receivers drop duplicates. */
export const newWebhookId = () => `msg_${randomUUID()}`;

/** The tables whose rows are claimed: each has claimed_by and claimed_until. */
type Claimable = "leads" | "invitations";

/**
 * Nobody holds the row: never claimed, or its claim ran out (the sender
 * that held it died). Written once for both tables: their claim columns are
 * the same.
 */
export const unclaimed =
  (now: number) =>
  <Table extends Claimable>(eb: ExpressionBuilder<Database, Table>) => {
    const claims = eb as unknown as ExpressionBuilder<Database, Claimable>;
    return claims.or([claims("claimed_until", "is", null), claims("claimed_until", "<=", now)]);
  };
