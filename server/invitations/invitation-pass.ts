import "server-only";
import type { Selectable } from "kysely";
import { consentStandings } from "@/server/consent/consent-store";
import type { Store } from "@/server/db/connect";
import type { InvitationsTable } from "@/server/db/schema";
import { INVITATIONS, type ServerEnv } from "@/server/env";
import type { OutboxRow } from "@/server/outbox/outbox-store";
import { nothingSent, sendDue, type Check, type PassSummary, type Sending } from "@/server/outbox/pass";
import type { Kind } from "@/server/outbox/send";
import { textedAnswer } from "@/server/outbox/webhook";
import { invitationById, markClaimed, recordAnswer, reserveSlot, waveNamed } from "./invitation-store";
import { sendingTime, zonesOf } from "./quiet-hours";
import { acceptedToday } from "./waves";

const invitationStates = ["texted", "refused", "skipped", "waiting", "failed", "retrying"] as const;

export type InvitationSummary = PassSummary<InvitationOutcome>;

type InvitationOutcome = (typeof invitationStates)[number];
type Invitation = Selectable<InvitationsTable>;

/**
 * Consent and country checked again (changed since it was queued: skipped, never sent), the sending hours (outside
 * them, it waits), then a slot of the pace every instance shares.
 */
async function check(tx: Store, row: OutboxRow, env: ServerEnv): Promise<Check<Invitation>> {
  const now = Date.now();
  const settings = env.invite;
  const invitation = await invitationById(tx, row.id);
  const standing = (await consentStandings(tx, [invitation.phone])).get(invitation.phone);
  if (!standing?.recordId)
    return { settled: "skipped", change: { last_failure: `consent ${standing?.state ?? "none"}` } };
  if (!acceptedToday(invitation.phone, env))
    return { settled: "skipped", change: { last_failure: "country not accepted" } };
  const time = sendingTime(zonesOf(invitation.phone).zones, now, settings.hours);
  if (!time.open && time.opensAt === undefined)
    return { settled: "failed", change: { last_failure: "no sending hours in its time zones" } };
  if (!time.open) return { settled: "waiting", change: { next_attempt_at: time.opensAt! } };
  const paceAt = await reserveSlot(tx, now, Math.ceil(60_000 / settings.perMinute));
  if (paceAt !== undefined) return { waitUntil: paceAt };
  await markClaimed(tx, row.id, { at: now, consentId: standing.recordId });
  return { own: { ...invitation, consent_id: standing.recordId } };
}

/**
 * Never let in (a redirect, a 4xx) or refused by Twilio itself: no text. A timeout, a dropped connection or another
 * 5xx may have reached the carrier before the answer was lost.
 */
export function mayHaveReachedCarrier(failure: string) {
  if (/^redirect /.test(failure) || /^status 4\d\d\b/.test(failure)) return false;
  return !/^status 5\d\d (twilio_not_configured|twilio_refused 4\d\d)$/.test(failure);
}

/** A launch invitation: the texting workflow answers whether it texted the number. */
export const invitationKind: Kind<Invitation> = {
  owns: (receiver) => receiver === INVITATIONS,
  webhook: (env) => env.invite.webhook,
  words: { pending: "queued", dead: "failed", held: "queued", answered: ["texted", "refused"] },
  readAnswer: true,
  answer: (result) => {
    const answer = textedAnswer(result.body);
    return answer && (answer.texted ? "texted" : "refused");
  },
  /** Its carrier's answer, and whether it may have reached the carrier; a failure in a wave cancelled meanwhile ends it cancelled. */
  async settling(tx, { row, own }, { state, result, failure }) {
    const answer = result.ok ? textedAnswer(result.body) : undefined;
    await recordAnswer(tx, row.id, {
      reached: result.ok || mayHaveReachedCarrier(failure!),
      ...(answer && {
        answer: answer.texted ? "texted" : "texted:false",
        carrier_code: answer.texted ? null : answer.code,
      }),
    });
    if (answer) return state;
    const wave = await waveNamed(tx, own.wave);
    return wave?.cancelled_at !== null && wave !== undefined ? "cancelled" : state;
  },
  // Claimed before: sent and answered, or left by an instance that died while sending. Either way it may have gone.
  sentBefore: ({ row, own }) => (own.claimed_at !== null ? row.created_at : undefined),
  events: { pending: "invitation_pending", dead: "invitation_failed" },
  facts: ({ row, own }) => ({ webhookId: row.id, wave: own.wave, attempts: row.attempts }),
};

export const invitationSending: Sending<Invitation, InvitationOutcome> = {
  kind: invitationKind,
  due: (by) => ({ wanted: [{ receivers: [INVITATIONS], states: ["queued", "waiting"], by }] }),
  check,
  outcomes: invitationStates,
  outcome: (state) =>
    state === "queued" ? "retrying" : state === "cancelled" ? "failed" : (state as InvitationOutcome),
};

/** One at a time at the shared pace; nothing while INVITE_WEBHOOK_URL is unset. */
export async function invitationPass(
  store: Store,
  env: ServerEnv,
  { budgetMs, stopping }: { budgetMs: number; stopping?: () => boolean },
): Promise<InvitationSummary> {
  if (!env.invite.webhook.url) return nothingSent(invitationStates);
  const summary = await sendDue(store, env, invitationSending, { concurrency: 1, budgetMs, stopping });
  await store.durable();
  return summary;
}
