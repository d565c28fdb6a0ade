import "server-only";
import type { ServerEnv } from "@/server/env";
import type { FormName } from "@/lib/forms";

/** The receiver of the launch invitations (INVITE_WEBHOOK_URL), beside each form's: failing and recovering the same way. */
export const INVITATIONS = "invitations";

/** Whose receiver an outcome speaks of: a form's, or the invitations'. */
export type Receiver = FormName | typeof INVITATIONS;

/** What happened to a lead (or an invitation), as the sender that settled it saw it. */
export type Outcome = "delivered" | "pending" | "dead" | "held";

/** A database outage as this process saw it begin (`down`) or end (`up`). */
export type StoreChange = { state: "down"; since: number } | { state: "up"; since: number; now: number };

/** A lead or an invitation settled: whose receiver, what became of it, and (failed) what the attempt was answered. */
export type Settled = { receiver: Receiver; outcome: Outcome; env: ServerEnv; failure?: string };
