import { disclosureOf, type Disclosure } from "@/server/consent/disclosure";
import { leadKey, type LeadRow } from "@/server/forms/leads";
import { newWebhookId } from "@/server/outbox/outbox-store";
import { recordConsent, unrecordedDisclosure } from "@/server/consent/consent-store";
import type { Store } from "@/server/db/connect";

let counter = 0;

/** A pending waitlist lead for `phone`, with a name of its own, as a unit test keeps it in the store. */
export function waitlistLead(phone = "+15551234567", overrides: Partial<LeadRow> = {}): LeadRow {
  counter += 1;
  const payload = { phone, name: `Ada ${counter}` };
  return {
    id: newWebhookId(),
    receiver: "waitlist",
    dedupe_key: leadKey("waitlist", payload),
    payload: JSON.stringify(payload),
    state: "pending",
    attempts: 0,
    rounds: 0,
    created_at: 1_000,
    next_attempt_at: 2_000,
    last_failure: null,
    delivered_at: null,
    answer: null,
    carrier_code: null,
    claimed_by: null,
    claimed_until: null,
    ...overrides,
  };
}

/** The evidence of a web sign-up of `phone`, with JavaScript on, as recordConsent takes it. */
export function webConsent(phone: string) {
  return {
    phone,
    ip: "203.0.113.9",
    userAgent: "Mozilla/5.0",
    pageUrl: "https://sous.example/signup",
    javascript: true,
    disclosure: disclosureOf("I agree."),
    shownVersion: null,
  };
}

/** The evidence of a sign-up kept with nothing but its number and text (no address, browser or page), as recordConsent takes it. */
export function plainEvidence(phone: string, disclosure: Disclosure) {
  return { phone, ip: null, userAgent: null, pageUrl: null, javascript: false, disclosure, shownVersion: null };
}

/** A row tying a lead kept before consent records to its number, as upgrades wrote them: evidence of nothing. */
export function linkUnrecordedLead(store: Store, link: { phone: string; leadId: string; at: number }) {
  return recordConsent(store, {
    evidence: plainEvidence(link.phone, unrecordedDisclosure),
    leadId: link.leadId,
    at: link.at,
    putsInForce: false,
    id: `con_unrecorded_${link.leadId}`,
  });
}
