import "server-only";
import type { Store } from "@/server/db/connect";
import type { ServerEnv } from "@/server/env";
import type { FormName } from "@/lib/forms";

/** What happened to a lead, as the sender that settled it saw it. */
export type Outcome = "delivered" | "pending" | "dead" | "held";

/** A database outage as this process saw it begin (`down`) or end (`up`). */
export type StoreChange = { state: "down"; since: number } | { state: "up"; since: number; now: number };

/**
 * Who hears what a sender learns: each settled lead's outcome (what it says
 * of the form's receiver), and each database outage this process sees begin
 * and end. Every entry point that can settle a lead names one (the operator's
 * alerts, server/alerts): a required parameter of submitLead, sendClaimed,
 * redeliveryPass and storeFailed, so an entry point that forgets it does not
 * compile. Each must return at once: no sender waits for a listener.
 */
export type Listener = {
  settled(store: Store, form: FormName, outcome: Outcome, env: ServerEnv): void;
  storeChanged(change: StoreChange): void;
};
