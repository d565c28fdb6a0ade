import "server-only";
import { randomUUID } from "node:crypto";

/**
 * Who holds a row of the outbox, and until when: a sender claims it before it posts it, so no other pass, instance or
 * visitor sends it too; a claim left by a process that died runs out and is taken over.
 */
export type Claim = { token: string; until: number };

// A claim outlives its sender's longest wait by this much.
export const CLAIM_MARGIN_MS = 5_000;

/** A claim of `ms` from `now`. */
export const newClaim = (ms: number, now = Date.now()): Claim => ({ token: randomUUID(), until: now + ms });

/** A fresh webhook-id: one per delivery, kept by every attempt and every redelivery, so receivers drop duplicates. */
export const newWebhookId = () => `msg_${randomUUID()}`;
