import "server-only";
import { logEvent, messageOf } from "@/server/log";
import { processWide } from "@/server/process-wide";
import { noteStoreChange } from "./alerts";

// Process-wide, so an outage is logged and told once, not once per bundle.
const shared = processWide("store-outage", () => ({ down: false, since: 0 }));

/**
 * The store failed (unreachable Postgres, a full disk, a read-only file):
 * what was being sent still goes out, and the operator hears of it once per
 * outage (the log, and an alert), not once per post.
 */
export function storeFailed(error: unknown, facts: object = {}) {
  if (shared.down) return;
  shared.down = true;
  shared.since = Date.now();
  logEvent("error", { event: "lead_store_failed", ...facts, message: messageOf(error) });
  noteStoreChange({ state: "down", since: shared.since });
}

/** The store answered: the next failure is a new outage. */
export function storeAnswered() {
  if (!shared.down) return;
  shared.down = false;
  logEvent("info", { event: "lead_store_recovered" });
  noteStoreChange({ state: "up", since: shared.since, now: Date.now() });
}
