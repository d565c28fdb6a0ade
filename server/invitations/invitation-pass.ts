import "server-only";
import { consentStandings } from "@/server/consent/consent-store";
import type { Store } from "@/server/db/connect";
import { inTransaction } from "@/server/db/connect";
import type { InvitationState } from "@/server/db/schema";
import { INVITATIONS, type InviteSettings, type ServerEnv } from "@/server/env";
import { CLAIM_MARGIN_MS, newClaim } from "@/server/outbox/claims";
import { noteOutcome } from "@/server/outbox/alerts";
import { nextRound } from "@/server/outbox/retry-policy";
import { failureOf } from "@/server/outbox/failures";
import { nothingSent, runPass, type DeliveryKind, type PassSummary, type Step } from "@/server/outbox/pass";
import type { ProbeKind } from "@/server/outbox/probe";
import { postSigned } from "@/server/outbox/signed-post";
import { logEvent } from "@/server/log";
import {
  claimInvitation,
  nextDue,
  releaseQueued,
  setUnclaimed,
  settleInvitation,
  reserveSlot,
  type InvitationRow,
} from "@/server/outbox/invitation-store";
import { sendingTime, zonesOf } from "./quiet-hours";
import { acceptedToday } from "./waves";

const invitationStates = ["texted", "refused", "skipped", "waiting", "failed", "retrying"] as const;

export type InvitationSummary = PassSummary<InvitationOutcome>;

type InvitationOutcome = (typeof invitationStates)[number];
type Claimed = { row: InvitationRow; token: string };

/**
 * One transaction: consent and country checked again (changed since it was queued: skipped, never sent), the sending
 * hours (outside them, it waits), then a slot of the pace every instance shares, and only then the claim.
 */
function claimDue(
  store: Store,
  {
    env,
    settings,
    now,
    sent,
    ahead,
  }: { env: ServerEnv; settings: InviteSettings; now: number; sent: readonly string[]; ahead: boolean },
) {
  return inTransaction(store, async (tx): Promise<Step<Claimed, InvitationOutcome>> => {
    const row = await nextDue(tx, { now, skipIds: sent, ahead });
    if (!row) return undefined;
    const standing = (await consentStandings(tx, [row.phone])).get(row.phone);
    if (!standing?.recordId) {
      await setUnclaimed(tx, row.id, { state: "skipped", last_failure: `consent ${standing?.state ?? "none"}` });
      return { settled: "skipped" };
    }
    if (!acceptedToday(row.phone, env)) {
      await setUnclaimed(tx, row.id, { state: "skipped", last_failure: "country not accepted" });
      return { settled: "skipped" };
    }
    const time = sendingTime(zonesOf(row.phone).zones, now, settings.hours);
    if (!time.open && time.opensAt === undefined) {
      await setUnclaimed(tx, row.id, { state: "failed", last_failure: "no sending hours in its time zones" });
      return { settled: "failed" };
    }
    if (!time.open) {
      await setUnclaimed(tx, row.id, { state: "waiting", next_attempt_at: time.opensAt! });
      return { settled: "waiting" };
    }
    const paceAt = await reserveSlot(tx, now, Math.ceil(60_000 / settings.perMinute));
    if (paceAt !== undefined) return { waitUntil: paceAt };
    const held = newClaim(env.WEBHOOK_ATTEMPT_TIMEOUT_MS + CLAIM_MARGIN_MS);
    await claimInvitation(tx, { id: row.id, claim: held, now, consentId: standing.recordId });
    return {
      claimed: { row: { ...row, consent_id: standing.recordId }, token: held.token },
      id: row.id,
      receiver: INVITATIONS,
    };
  });
}

/**
 * A 2xx that says neither texted nor refused is no answer: n8n answers 200 with an empty body when an execution dies
 * before its Respond node, so the text may not have gone.
 */
function invitationAnswer(
  body: string | undefined,
): { texted: true } | { texted: false; code: string | null } | undefined {
  try {
    const answer = JSON.parse(body ?? "") as { texted?: unknown; code?: unknown } | null;
    if (answer?.texted === true) return { texted: true };
    if (answer?.texted === false)
      return { texted: false, code: answer.code === undefined || answer.code === null ? null : String(answer.code) };
  } catch {}
  return undefined;
}

/**
 * Never let in (a redirect, a 4xx) or refused by Twilio itself: no text. A timeout, a dropped connection or another
 * 5xx may have reached the carrier before the answer was lost.
 */
export function mayHaveReachedCarrier(failure: string) {
  if (/^redirect /.test(failure) || /^status 4\d\d\b/.test(failure)) return false;
  return !/^status 5\d\d (twilio_not_configured|twilio_refused 4\d\d)$/.test(failure);
}

async function sendInvitation(
  store: Store,
  env: ServerEnv,
  { settings, probe = false }: { settings: InviteSettings; probe?: boolean },
  { row, token }: Claimed,
) {
  const { webhook } = settings;
  const body = JSON.stringify({ phone: row.phone, text: row.text });
  // Claimed before: sent and answered, or left by an instance that died while sending. Either way it may have gone.
  const sentBefore = row.claimed_at !== null;
  const result = await postSigned(
    { ...webhook, url: webhook.url! },
    {
      webhookId: row.id,
      body,
      timeoutMs: env.WEBHOOK_ATTEMPT_TIMEOUT_MS,
      readAnswer: true,
      redeliverySince: sentBefore ? row.queued_at : undefined,
    },
  );
  const now = Date.now();
  const answer = result.ok ? invitationAnswer(result.body) : undefined;
  if (answer) {
    const state: InvitationState = answer.texted ? "texted" : "refused";
    await settleInvitation(store, {
      row,
      token,
      change: {
        state,
        answered_at: now,
        answer: answer.texted ? "texted" : "texted:false",
        carrier_code: answer.texted ? null : answer.code,
        last_failure: null,
      },
      reached: true,
    });
    noteOutcome(store, { receiver: INVITATIONS, outcome: "delivered", env });
    return state;
  }
  const { rounds, next } = nextRound(row, { probe, schedule: env.REDELIVERY_SCHEDULE_SECONDS, now });
  // Sent again under its webhook-id: a workflow that did text it answers that it did, and texts nothing.
  const failure = result.ok ? `unconfirmed ${result.status}` : failureOf(result)!;
  await settleInvitation(store, {
    row,
    token,
    change:
      next === undefined
        ? { state: "failed", rounds, last_failure: failure }
        : { state: "queued", rounds, next_attempt_at: next, last_failure: failure },
    reached: result.ok || mayHaveReachedCarrier(failure),
  });
  noteOutcome(store, {
    receiver: INVITATIONS,
    outcome: next === undefined ? "dead" : "pending",
    env,
    failure,
  });
  const facts = { webhookId: row.id, wave: row.wave, attempts: row.attempts + 1, reason: failure };
  if (next === undefined) logEvent("error", { event: "invitation_failed", ...facts });
  else logEvent("warn", { event: "invitation_pending", ...facts, nextAttemptAt: new Date(next).toISOString() });
  return next === undefined ? "failed" : "retrying";
}

/** One at a time at the shared pace; nothing while INVITE_WEBHOOK_URL is unset. */
export async function invitationPass(
  store: Store,
  env: ServerEnv,
  { budgetMs, stopping }: { budgetMs: number; stopping?: () => boolean },
): Promise<InvitationSummary> {
  const settings = env.invite;
  const invitations: DeliveryKind<Claimed, InvitationOutcome> = {
    states: invitationStates,
    next: async ({ sent, paused }) =>
      paused.length ? undefined : claimDue(store, { env, settings, now: Date.now(), sent, ahead: false }),
    async send(claimed) {
      const state = await sendInvitation(store, env, { settings }, claimed);
      return { state, answered: state === "texted" || state === "refused" };
    },
  };
  if (!settings.webhook.url) return nothingSent(invitationStates);
  const summary = await runPass(invitations, { concurrency: 1, budgetMs, stopping });
  await store.durable();
  return summary;
}

/**
 * The first invitation a failure put back, sent ahead of its schedule with every check a pass makes; answered, every
 * queued invitation is due now.
 */
export async function probeInvitations(store: Store, env: ServerEnv) {
  const settings = env.invite;
  if (!settings.webhook.url) return "unset";
  const step = await claimDue(store, { env, settings, now: Date.now(), sent: [], ahead: true });
  if (!step) return "none";
  if (!("claimed" in step)) return "settled" in step ? step.settled : "pace";
  const state = await sendInvitation(store, env, { settings, probe: true }, step.claimed);
  if (state === "texted" || state === "refused") await releaseQueued(store, Date.now());
  return state;
}

export const invitationProbe = (store: Store, env: ServerEnv): ProbeKind => ({
  owns: (receiver) => receiver === INVITATIONS,
  async probe() {
    const state = await probeInvitations(store, env);
    return { state, answered: state === "texted" || state === "refused" };
  },
});
