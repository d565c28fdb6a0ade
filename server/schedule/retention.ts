import "server-only";
import { forgetOldConsents } from "@/server/consent/consent-store";
import type { Store } from "@/server/db/connect";
import type { ServerEnv } from "@/server/env";
import { forgetOldInvitations } from "@/server/invitations/invitation-store";
import { forgetDeliveredPayloads, forgetUnrenewedSignups } from "@/server/leads/lead-store";
import { logEvent } from "@/server/log";
import { processWide } from "@/server/process-wide";
import { forgetSpentWindows } from "@/server/rate-limit/limit-store";

// Retention runs with a pass at most this often.
const RETENTION_EVERY_MS = 10 * 60_000;

/** When retention last ran in this process (process-wide: the timer and the cron route are bundled apart). */
const retentionRuns = processWide("retention", () => ({ last: 0 }));

/**
 * Retention, at most every ten minutes per process: delivered leads lose
 * their payload after LEAD_RETENTION_DAYS, and so do sign-ups that waited
 * that long for a START (never sent); consent records, revocations, renewals and launch invitations go
 * after CONSENT_RETENTION_DAYS, the per-person limits' windows once they ran
 * out. Each store forgets its own rows; this is the
 * one place that says when.
 */
export async function applyRetention(store: Store, env: ServerEnv) {
  const now = Date.now();
  if (now - retentionRuns.last < RETENTION_EVERY_MS) return;
  retentionRuns.last = now;
  const forgotten = await forgetDeliveredPayloads(store, now - env.LEAD_RETENTION_DAYS * 86_400_000);
  if (forgotten)
    logEvent("info", { event: "lead_payloads_forgotten", leads: forgotten, retentionDays: env.LEAD_RETENTION_DAYS });
  const unrenewed = await forgetUnrenewedSignups(store, now - env.LEAD_RETENTION_DAYS * 86_400_000);
  if (unrenewed)
    logEvent("info", {
      event: "unrenewed_signups_forgotten",
      leads: unrenewed,
      retentionDays: env.LEAD_RETENTION_DAYS,
    });
  await forgetSpentWindows(store, now);
  const consentCutoff = now - env.CONSENT_RETENTION_DAYS * 86_400_000;
  const consents = await forgetOldConsents(store, consentCutoff);
  if (consents.consents || consents.revocations || consents.renewals)
    logEvent("info", { event: "consents_forgotten", ...consents, retentionDays: env.CONSENT_RETENTION_DAYS });
  // An invitation is the record of a text sent on a consent: kept as long as the consent records are.
  const invitations = await forgetOldInvitations(store, consentCutoff);
  if (invitations)
    logEvent("info", { event: "invitations_forgotten", invitations, retentionDays: env.CONSENT_RETENTION_DAYS });
}
