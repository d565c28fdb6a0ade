import { vi } from "vitest";
import { recordConsent } from "@/server/consent/consent-store";
import type { Store } from "@/server/db/connect";
import { disclosureOf } from "@/server/consent/disclosure";
import { newWebhookId } from "@/server/outbox/outbox-store";
import { plainEvidence } from "./waitlist-lead";

export const inviteSecretForTests = "whsec_" + Buffer.from("invite-secret-for-tests-32-bytes").toString("base64");

/** What a wave needs set, as an operator sets it: where the invitations go, signed, where their link leads, the site. */
export function stubInvitationSettings(link = "https://sous.example/start") {
  vi.stubEnv("INVITE_WEBHOOK_URL", "http://127.0.0.1:9/invite");
  vi.stubEnv("INVITE_WEBHOOK_SECRET", inviteSecretForTests);
  vi.stubEnv("INVITE_URL", link);
  vi.stubEnv("SITE_URL", "https://sous.example");
}

const disclosure = disclosureOf("I agree to receive recurring automated texts. Reply STOP to cancel.");

/** A consent in force for each number, one millisecond apart from `at`, in the order given. */
export async function consentsFor(store: Store, phones: readonly string[], at = 1_000) {
  for (const [i, phone] of phones.entries())
    await recordConsent(store, { evidence: plainEvidence(phone, disclosure), leadId: newWebhookId(), at: at + i });
}
