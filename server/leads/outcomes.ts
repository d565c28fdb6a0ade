import "server-only";
import type { Store } from "@/server/db/connect";
import type { ServerEnv } from "@/server/env";
import type { FormName } from "@/lib/forms";
import { processWide } from "@/server/process-wide";

/** What happened to a lead, as the sender that settled it saw it. */
export type Outcome = "delivered" | "pending" | "dead" | "held";

/** Hears each settled lead's outcome; must return at once (no sender waits for a listener). */
export type OutcomeListener = (store: Store, form: FormName, outcome: Outcome, env: ServerEnv) => void;

// Process-wide: the alerts register at start (instrumentation.ts) and must hear
// the leads the server actions' bundle settles.
const listeners = processWide("outcomes", () => new Map<string, OutcomeListener>());

/**
 * Registers a listener under a name; registering the same name again replaces
 * it, so each bundle that registers at its entry adds no second copy.
 */
export function listenToOutcomes(name: string, listener: OutcomeListener) {
  listeners.set(name, listener);
}

/** Tells every listener how a lead was settled. */
export function announceOutcome(store: Store, form: FormName, outcome: Outcome, env: ServerEnv) {
  for (const listener of listeners.values()) listener(store, form, outcome, env);
}
