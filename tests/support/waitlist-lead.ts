import { leadKey, newWebhookId, type LeadRow } from "@/server/leads/lead";

let counter = 0;

/** A pending waitlist lead for `phone`, with a name of its own, as a unit test keeps it in the store. */
export function waitlistLead(phone = "+15551234567", overrides: Partial<LeadRow> = {}): LeadRow {
  counter += 1;
  const payload = { phone, name: `Ada ${counter}` };
  return {
    id: newWebhookId(),
    form: "waitlist",
    dedupe_key: leadKey("waitlist", payload),
    payload: JSON.stringify(payload),
    state: "pending",
    attempts: 0,
    rounds: 0,
    created_at: 1_000,
    next_attempt_at: 2_000,
    last_failure: null,
    delivered_at: null,
    claimed_by: null,
    claimed_until: null,
    ...overrides,
  };
}
