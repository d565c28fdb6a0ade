import "server-only";
import type { Receiver, ServerEnv } from "@/server/env";

/** What happened to a lead (or an invitation), as the sender that settled it saw it. */
export type Outcome = "delivered" | "pending" | "dead" | "held";

/** A database outage as this process saw it begin (`down`) or end (`up`). */
export type StoreChange = { state: "down"; since: number } | { state: "up"; since: number; now: number };

/** A lead or an invitation settled: whose receiver, what became of it, and (failed) what the attempt was answered. */
export type Settled = { receiver: Receiver; outcome: Outcome; env: ServerEnv; failure?: string };
