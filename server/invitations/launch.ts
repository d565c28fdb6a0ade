import "server-only";
import { invitationLinkMax, isOneSegment, smsTexts } from "@/lib/sms/program";
import { adviceFor } from "@/server/outbox/alerts";
import { receiverFailure } from "@/server/outbox/alert-store";
import type { Store } from "@/server/db/connect";
import { invitationStates, type InvitationState } from "@/server/db/schema";
import { INVITATIONS, readEnv, sendRefusesUnsigned, siteAddressSet } from "@/server/env";
import { invitationCounts, listInvitations } from "@/server/invitations/invitation-store";
import {
  cancelInvitations,
  newInvitationCode,
  queueWave,
  whyWaiting,
  type WaveSelection,
} from "@/server/invitations/waves";
import { siteUrl } from "@/server/site-settings";
import { insertActivity } from "@/server/operators/activity-store";
import { lastRevocations } from "@/server/consent/consent-store";
import type { Actor } from "@/server/operators/operators";

/**
 * The launch's waves as the operator runs them, the same from `npm run invite` and from the console: send (queue) one,
 * cancel one, and each wave's status; sending and cancelling are written to the activity log (who, the wave, how many;
 * never a number).
 */

/** Why a wave was not sent or cancelled, in words the operator can act on; nothing was done. */
export class WaveError extends Error {
  constructor(
    message: string,
    /** What went wrong, for a page to say it again without the words in its address. */
    readonly code: "unset" | "long" | "unsigned" | "exists" | "unknown" | "count",
  ) {
    super(message);
  }
}

/** A wave's name: letters, digits, ".", "_" or "-", 64 at most, starting with a letter or digit; used once. */
export const isWaveName = (name: string) => /^[A-Za-z0-9][\w.-]{0,63}$/.test(name);

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Queues a wave named `name` (used once) for the numbers `selection` picks, checked again at send time; refused when
 * the invitations have nowhere to go (INVITE_WEBHOOK_URL, INVITE_URL, SITE_URL), would go unsigned without `unsigned`,
 * or when the plan the queue makes does not text the `count` the operator typed.
 */
export async function launchWave(
  store: Store,
  {
    name,
    selection,
    count,
    unsigned = false,
    by,
  }: { name: string; selection: WaveSelection; count?: number; unsigned?: boolean; by: Actor },
) {
  const env = readEnv();
  const settings = env.invite;
  const missing = [
    ...(settings.webhook.url ? [] : ["INVITE_WEBHOOK_URL (where the invitations go: the workflow that texts them)"]),
    ...(settings.link ? [] : ["INVITE_URL (where the invitation's link leads)"]),
    ...(siteAddressSet(env) ? [] : ["SITE_URL (the site's address, which the link is on)"]),
  ];
  if (missing.length) throw new WaveError(`not set: ${missing.join(", ")}; nothing was queued`, "unset");
  const linkOf = (code: string) => `${siteUrl().origin}/i/${code}`;
  if (!isOneSegment(smsTexts.invitation(linkOf(newInvitationCode()))))
    throw new WaveError(
      `SITE_URL is too long for the invitation to stay one SMS segment: its link, ${linkOf("CODE")} with a 12-character code, must be ${invitationLinkMax} characters at most; nothing was queued`,
      "long",
    );
  if (sendRefusesUnsigned(settings.webhook) && !unsigned)
    throw new WaveError(
      "INVITE_WEBHOOK_SECRET is not set, nor INVITE_WEBHOOK_AUTH_HEADER: the invitations would go out unsigned, and " +
        "anyone who learns the URL could have the workflow text any number. Set the secret (docs/webhooks.md), or " +
        "pass --unsigned to send them so; nothing was queued",
      "unsigned",
    );
  const queued = await queueWave(store, {
    name,
    selection,
    text: (code) => smsTexts.invitation(linkOf(code)),
    now: Date.now(),
    count,
  });
  if (!queued)
    throw new WaveError(`a wave named ${name} exists already; nothing was queued (a name is used once)`, "exists");
  if (queued.counted === false)
    throw new WaveError(
      `the plan texts ${queued.plan.chosen.length} now, not the ${count} typed; nothing was queued`,
      "count",
    );
  if (queued.queued) await insertActivity(store, { ...by, action: "wave sent", subject: name, rows: queued.queued });
  return { queued, settings };
}

/** Cancels what a wave has not sent yet, and gives back what never reached the carrier; refused for no such wave. */
export async function cancelWaveNamed(store: Store, { name, by }: { name: string; by: Actor }) {
  const result = await cancelInvitations(store, name);
  if (result === undefined) throw new WaveError(`no wave named ${name}`, "unknown");
  await insertActivity(store, { ...by, action: "wave cancelled", subject: name, rows: result.cancelled });
  return result;
}

export const waveStateLabels: Record<InvitationState, string> = {
  queued: "queued",
  waiting: "waiting for sending hours",
  texted: "texted",
  refused: "refused by the carrier",
  skipped: "skipped: consent revoked",
  failed: "failed",
  cancelled: "cancelled",
};

/** Texted invitations whose number replied STOP (or revoked otherwise) after the text was answered. */
async function stoppedAfterTexted(store: Store, wave: string | undefined) {
  const texted = await listInvitations(store, { wave, state: "texted" });
  const revoked = await lastRevocations(
    store,
    texted.map((row) => row.phone),
  );
  return texted.filter((row) => (revoked.get(row.phone) ?? -1) >= (row.delivered_at ?? Infinity)).length;
}

/** A carrier's refusal in the founder's words: the codes Twilio gives most, the rest by number. */
export function refusalWords(code: string | null) {
  if (code === "21610") return "replied STOP";
  if (code === "21614") return "not a mobile number";
  if (code === "21211") return "invalid number";
  if (/^3000[3-8]$/.test(String(code))) return "unreachable or filtered";
  return code === null ? "refused by the carrier" : `refused by the carrier (code ${code})`;
}

export async function waveStatus(store: Store, wave: string | undefined) {
  const [{ states, retrying, refusals, opened }, stopped] = await Promise.all([
    invitationCounts(store, wave),
    stoppedAfterTexted(store, wave),
  ]);
  const counts = Object.fromEntries(invitationStates.map((state) => [state, 0])) as Record<InvitationState, number>;
  for (const row of states) counts[row.state] += row.count;
  // The launch's response, in the order a founder reads it: every invitation the wave queued, then what became of it.
  const response = {
    queued: Object.values(counts).reduce((sum, count) => sum + count, 0),
    texted: counts.texted,
    opened,
    stopped,
    failed: counts.refused + counts.failed,
  };
  const refusedByCode: Record<string, number> = {};
  for (const row of refusals)
    refusedByCode[row.carrierCode ?? "unknown"] = (refusedByCode[row.carrierCode ?? "unknown"] ?? 0) + row.count;
  // Why those waiting wait: each set of zones and the moment they all open, with how many wait for it.
  const waiting = new Map<string, { zones: string[]; until: string; count: number }>();
  for (const row of await listInvitations(store, { wave, state: "waiting" })) {
    const why = whyWaiting(row)!;
    const key = `${why.until} ${why.zones.join(" ")}`;
    const group = waiting.get(key) ?? { zones: why.zones, until: iso(why.until)!, count: 0 };
    group.count += 1;
    waiting.set(key, group);
  }
  const waitingFor = [...waiting.values()].sort((a, b) => a.until.localeCompare(b.until));
  // The workflow as the alerts see it, whatever the wave: failing since when, its last answer, what to do.
  const failure = await receiverFailure(store, INVITATIONS);
  const receiver = failure
    ? {
        failingSince: iso(failure.since)!,
        lastFailure: failure.lastFailure,
        advice: adviceFor(INVITATIONS, failure.lastFailure),
      }
    : null;
  return {
    wave: wave ?? null,
    response,
    counts,
    retrying,
    refusedByCode,
    waitingFor,
    receiver,
  };
}
