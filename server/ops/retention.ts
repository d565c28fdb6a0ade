import "server-only";
import { forgetOldConsents } from "@/server/consent/consent-store";
import type { Store } from "@/server/db/connect";
import type { ServerEnv } from "@/server/env";
import { forgetOldInvitations } from "@/server/invitations/invitation-store";
import { forgetDeliveredPayloads, forgetUnrenewedSignups } from "@/server/outbox/outbox-store";
import { logEvent } from "@/server/log";
import { processWide } from "@/server/process-wide";
import { forgetActivity } from "@/server/operators/activity-store";
import { forgetExpiredAccess } from "@/server/operators/operator-store";
import { forgetSpentWindows } from "@/server/forms/limit-store";

// Retention runs with a pass at most this often.
const RETENTION_EVERY_MS = 10 * 60_000;

/** When retention last ran in this process (process-wide: the timer and the cron route are bundled apart). */
const retentionRuns = processWide("retention", () => ({ last: 0 }));

/** What a run of retention forgot, table by table; `ran` is false when it was not due. */
export type RetentionSummary =
  | { ran: false }
  | {
      ran: true;
      payloads: number;
      unrenewedSignups: number;
      consents: number;
      revocations: number;
      renewals: number;
      invitations: number;
      limitWindows: number;
      /** The console's sessions, enrolment links and passkey ceremonies that ran out. */
      consoleAccess: number;
      /** The console's activity lines older than AUDIT_RETENTION_DAYS. */
      activity: number;
    };

/**
 * At most every ten minutes per process. Each store forgets its own rows; this is the one place that says when
 * (LEAD_RETENTION_DAYS, CONSENT_RETENTION_DAYS, AUDIT_RETENTION_DAYS, and each limit's or session's own end).
 */
export async function applyRetention(store: Store, env: ServerEnv): Promise<RetentionSummary> {
  const now = Date.now();
  if (now - retentionRuns.last < RETENTION_EVERY_MS) return { ran: false };
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
  const windows = await forgetSpentWindows(store, now);
  const consentCutoff = now - env.CONSENT_RETENTION_DAYS * 86_400_000;
  const consents = await forgetOldConsents(store, consentCutoff);
  if (consents.consents || consents.revocations || consents.renewals)
    logEvent("info", { event: "consents_forgotten", ...consents, retentionDays: env.CONSENT_RETENTION_DAYS });
  // An invitation is the record of a text sent on a consent: kept as long as the consent records are.
  const invitations = await forgetOldInvitations(store, consentCutoff);
  if (invitations)
    logEvent("info", { event: "invitations_forgotten", invitations, retentionDays: env.CONSENT_RETENTION_DAYS });
  const consoleAccess = await forgetExpiredAccess(store, now);
  const activity = await forgetActivity(store, now - env.AUDIT_RETENTION_DAYS * 86_400_000);
  if (activity)
    logEvent("info", { event: "activity_forgotten", lines: activity, retentionDays: env.AUDIT_RETENTION_DAYS });
  return {
    ran: true,
    payloads: forgotten,
    unrenewedSignups: unrenewed,
    ...consents,
    invitations,
    limitWindows: windows,
    consoleAccess,
    activity,
  };
}
