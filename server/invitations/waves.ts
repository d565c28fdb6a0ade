import "server-only";
import { canonicalPhone } from "@/lib/forms/phone";
import { consentStandings } from "@/server/consent/consent-store";
import type { Store } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { phonePolicyOf } from "@/server/site-settings";
import { newWebhookId } from "@/server/outbox/claims";
import { cancelWave, insertWave, invitedAmong, waveNamed, type InvitationRow } from "@/server/outbox/invitation-store";
import { zonesOf } from "./quiet-hours";

/** Who a wave takes: the next N of the list, all of it, or the numbers of a file. */
export type WaveSelection = { next: number } | { all: true } | { phones: readonly string[] };

export type WavePlan = {
  /** Who the wave would text, in sign-up order, with the consent record each relies on. */
  chosen: { phone: string; consentId: string; signedUpAt: number }[];
  /** In force and never invited, but past --next: left for a later wave. */
  later: number;
  /** `country`: in force, but not a number of WAITLIST_PHONE_COUNTRIES today (a START texted from abroad). */
  leftOut: { revoked: number; invited: number; noRecord: number; country: number };
};

/** Whether the waitlist would take this number today: one of WAITLIST_PHONE_COUNTRIES, in E.164 as kept. */
export const acceptedToday = (phone: string, env = readEnv()) => canonicalPhone(phone, phonePolicyOf(env)) === phone;

/**
 * Who a wave would text: the numbers whose consent is in force now (which
 * takes a web sign-up: a START alone is evidence only), that the waitlist
 * takes today (WAITLIST_PHONE_COUNTRIES) and that were never invited, in
 * sign-up order (a number's first record), and why the others are left out.
 * Reads only.
 */
export async function planWave(store: Store, selection: WaveSelection): Promise<WavePlan> {
  const given = "phones" in selection ? [...new Set(selection.phones)] : undefined;
  const [standings, invited] = await Promise.all([consentStandings(store, given), invitedAmong(store, given)]);
  const phones = given ?? [...standings.keys()];
  const leftOut = { revoked: 0, invited: 0, noRecord: 0, country: 0 };
  const env = readEnv();
  const eligible: WavePlan["chosen"] = [];
  for (const phone of phones) {
    const standing = standings.get(phone);
    if (invited.has(phone)) leftOut.invited += 1;
    else if (!standing?.recordId) leftOut[standing?.state === "revoked" ? "revoked" : "noRecord"] += 1;
    else if (!acceptedToday(phone, env)) leftOut.country += 1;
    else eligible.push({ phone, consentId: standing.recordId, signedUpAt: standing.firstAt });
  }
  eligible.sort((a, b) => a.signedUpAt - b.signedUpAt || a.phone.localeCompare(b.phone));
  const size = "next" in selection ? selection.next : eligible.length;
  return { chosen: eligible.slice(0, size), later: Math.max(0, eligible.length - size), leftOut };
}

/**
 * Records a wave and queues one invitation per number the plan chose, each
 * with its text and the consent record it relies on. Undefined when a wave
 * of that name exists; nothing queued (`counted: false`) when the plan does
 * not choose the `count` the operator typed; `queued` can be fewer than
 * planned when another command invited some of the numbers meanwhile.
 */
export async function queueWave(
  store: Store,
  wave: { name: string; selection: WaveSelection; text: string; now: number; count?: number | undefined },
) {
  if (await waveNamed(store, wave.name)) return undefined;
  const plan = await planWave(store, wave.selection);
  if (wave.count !== undefined && wave.count !== plan.chosen.length) return { plan, queued: 0, counted: false };
  if (!plan.chosen.length) return { plan, queued: 0 };
  const queued = await insertWave(
    store,
    { name: wave.name, at: wave.now },
    plan.chosen.map(({ phone, consentId }, position) => ({
      id: newWebhookId(),
      phone,
      wave: wave.name,
      position,
      consent_id: consentId,
      text: wave.text,
      state: "queued",
      queued_at: wave.now,
      next_attempt_at: wave.now,
    })),
  );
  if (queued === undefined) return undefined;
  await store.durable();
  return { plan, queued };
}

/**
 * Stops what a wave has not sent: how many were cancelled, how many of those
 * a later wave may take, and how many were on their way; undefined for an unknown wave.
 */
export async function cancelInvitations(store: Store, name: string, now = Date.now()) {
  const cancelled = await cancelWave(store, name, now);
  await store.durable();
  return cancelled;
}

/**
 * Why an invitation is waiting, and until when: the time zones its number
 * could be in (all of them must be inside INVITE_HOURS) and the moment they
 * all are, which the pass set when it put it to wait. Undefined unless it waits for its hours.
 */
export function whyWaiting(row: Pick<InvitationRow, "state" | "phone" | "next_attempt_at">) {
  if (row.state !== "waiting") return undefined;
  return { zones: zonesOf(row.phone).zones, until: row.next_attempt_at };
}
