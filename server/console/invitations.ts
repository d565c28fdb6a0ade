import "server-only";
import { smsTexts } from "@/lib/sms/program";
import { readEnv, siteAddressSet } from "@/server/env";
import { siteUrl } from "@/server/site-settings";
import type { Store } from "@/server/db/connect";
import { allWaves, listInvitations } from "@/server/invitations/invitation-store";
import type { WaveSelection } from "@/server/invitations/waves";
import { waveStatus } from "@/server/invitations/launch";
import { invitationWords, maskedPhone } from "./waitlist";

/** The most a console plan names at once: the page lists each number. */
export const PLAN_MAX = 10_000;

/**
 * Who a wave is for, as the console's plan form says it: the next N on the
 * waitlist (1 to 10,000), or all of it. `query` is what the page's address
 * keeps of it (no number ever); `valid` is false for anything else.
 */
export function selectionOf(plan: string | null | undefined, next: string | null | undefined) {
  if (plan === "all")
    return { valid: true as const, selection: { all: true } as WaveSelection, query: { plan: "all" } };
  const count = Number(next);
  if (plan === "next" && /^\d{1,5}$/.test(next ?? "") && count >= 1 && count <= PLAN_MAX)
    return {
      valid: true as const,
      selection: { next: count } as WaveSelection,
      query: { plan: "next", next: String(count) } as Record<string, string>,
    };
  return { valid: false as const, selection: { next: 1 } as WaveSelection, query: {} as Record<string, string> };
}

/**
 * What a wave of `count` would send, before Send: the text (each link ending in a code of its own, shown as
 * twelve x), the pace, the sending hours, and the minutes it takes while every number is within its hours.
 */
export function wavePreview(count: number) {
  const { invite, ...env } = readEnv();
  const site = siteAddressSet(env) ? siteUrl().origin : "https://your-site";
  return {
    text: smsTexts.invitation(`${site}/i/${"x".repeat(12)}`),
    perMinute: invite.perMinute,
    hours: invite.hours,
    minutes: Math.ceil(count / invite.perMinute),
  };
}

/** Every wave, newest first, with its live status (as `npm run invite -- status --wave NAME` gives it). */
export async function wavesWithStatus(store: Store) {
  const waves = await allWaves(store);
  return Promise.all(
    waves.map(async (wave) => ({
      name: wave.name,
      createdAt: Number(wave.created_at),
      size: Number(wave.size),
      cancelledAt: wave.cancelled_at === null ? null : Number(wave.cancelled_at),
      status: await waveStatus(store, wave.name),
    })),
  );
}

/** Who a wave texts, each with where their invitation stands: the number masked for a viewer. */
export async function waveRecipients(store: Store, wave: string, masked: boolean) {
  return (await listInvitations(store, { wave })).map((row) => ({
    chef: row.consent_id,
    phone: masked ? maskedPhone(row.phone) : row.phone,
    state: invitationWords(row),
  }));
}
