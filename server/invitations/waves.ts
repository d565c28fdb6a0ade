import "server-only";
import { randomBytes } from "node:crypto";
import { canonicalPhone } from "@/lib/forms/phone";
import { consentStandings, phonesBySignUp } from "@/server/consent/consent-store";
import type { Store } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { phonePolicyOf } from "@/server/site-settings";
import { newWebhookId, welcomedIds, type WelcomeState } from "@/server/outbox/outbox-store";
import {
  cancelWave,
  insertWave,
  invitedAmong,
  waveNamed,
  type InvitationRow,
} from "@/server/invitations/invitation-store";
import { zonesOf } from "./quiet-hours";

export type WaveSelection = { next: number } | { all: true } | { phones: readonly string[] };

export type WavePlan = {
  chosen: { phone: string; consentId: string; signedUpAt: number }[];
  later: number;
  /** `country`: in force, but not a number of WAITLIST_PHONE_COUNTRIES today (a START texted from abroad). */
  leftOut: { revoked: number; invited: number; noRecord: number; country: number; welcome: number };
  /** In force, but its welcome was not texted: each number, and its welcome's state. */
  notWelcomed: { phone: string; welcome: WelcomeState }[];
};

// "not reported" goes: a workflow other than the shipped one took the sign-up and says nothing of texts.
const notTexted = ["refused", "failing", "waiting", "not sent"] as const;

async function notWelcomedOf(store: Store) {
  const found = new Map<string, WelcomeState>();
  for (const welcome of notTexted)
    for (const { phone } of await phonesBySignUp(store, welcomedIds(store, welcome), "latest").execute())
      found.set(phone, welcome);
  return found;
}

export const acceptedToday = (phone: string, env = readEnv()) => canonicalPhone(phone, phonePolicyOf(env)) === phone;

/** In force now (which takes a web sign-up: a START alone is evidence), taken by the waitlist today, never invited; in sign-up order. */
export async function planWave(store: Store, selection: WaveSelection): Promise<WavePlan> {
  const given = "phones" in selection ? [...new Set(selection.phones)] : undefined;
  const [standings, invited, unwelcomed] = await Promise.all([
    consentStandings(store, given),
    invitedAmong(store, given),
    notWelcomedOf(store),
  ]);
  const phones = given ?? [...standings.keys()];
  const leftOut = { revoked: 0, invited: 0, noRecord: 0, country: 0, welcome: 0 };
  const notWelcomed: WavePlan["notWelcomed"] = [];
  const env = readEnv();
  const eligible: WavePlan["chosen"] = [];
  for (const phone of phones) {
    const standing = standings.get(phone);
    const welcome = unwelcomed.get(phone);
    if (invited.has(phone)) leftOut.invited += 1;
    else if (!standing?.recordId) leftOut[standing?.state === "revoked" ? "revoked" : "noRecord"] += 1;
    else if (!acceptedToday(phone, env)) leftOut.country += 1;
    else if (welcome) notWelcomed.push({ phone, welcome });
    else eligible.push({ phone, consentId: standing.recordId, signedUpAt: standing.firstAt });
  }
  leftOut.welcome = notWelcomed.length;
  eligible.sort((a, b) => a.signedUpAt - b.signedUpAt || a.phone.localeCompare(b.phone));
  const size = "next" in selection ? selection.next : eligible.length;
  return { chosen: eligible.slice(0, size), later: Math.max(0, eligible.length - size), leftOut, notWelcomed };
}

/** 72 random bits in 12 characters of base64url: a link of its own for each invitation, naming no one. */
export const newInvitationCode = () => randomBytes(9).toString("base64url");

/** Nothing queued (`counted: false`) when the plan does not choose the `count` the operator typed. */
export async function queueWave(
  store: Store,
  wave: {
    name: string;
    selection: WaveSelection;
    text: (code: string) => string;
    now: number;
    count?: number | undefined;
  },
) {
  if (await waveNamed(store, wave.name)) return undefined;
  const plan = await planWave(store, wave.selection);
  if (wave.count !== undefined && wave.count !== plan.chosen.length) return { plan, queued: 0, counted: false };
  if (!plan.chosen.length) return { plan, queued: 0 };
  const queued = await insertWave(
    store,
    { name: wave.name, at: wave.now },
    plan.chosen.map(({ phone, consentId }, position) => {
      const code = newInvitationCode();
      return {
        id: newWebhookId(),
        phone,
        wave: wave.name,
        position,
        consent_id: consentId,
        code,
        text: wave.text(code),
      };
    }),
  );
  if (queued === undefined) return undefined;
  await store.durable();
  return { plan, queued };
}

export async function cancelInvitations(store: Store, name: string) {
  const now = Date.now();
  const cancelled = await cancelWave(store, name, now);
  await store.durable();
  return cancelled;
}

/** All the zones its number could be in must be inside INVITE_HOURS. */
export function whyWaiting(row: Pick<InvitationRow, "state" | "phone" | "next_attempt_at">) {
  if (row.state !== "waiting") return undefined;
  return { zones: zonesOf(row.phone).zones, until: row.next_attempt_at };
}
