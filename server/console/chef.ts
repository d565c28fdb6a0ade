import "server-only";
import { database, type Store } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { consentRecords, consentStandings, leadIdsOfNumber, phoneOfConsent } from "@/server/consent/consent-store";
import { listInvitations } from "@/server/invitations/invitation-store";
import { sourcesOf } from "@/server/forms/source-store";
import { attemptsOf, leadById } from "@/server/outbox/outbox-store";
import type { Touch } from "@/server/web/visits";
import { invitationWords, maskedPhone, welcomeWords } from "./waitlist";

/** The name a lead's kept payload holds, if it still holds one (retention empties it after delivery). */
function nameOf(payload: string | null) {
  if (!payload) return undefined;
  try {
    const name = (JSON.parse(payload) as { name?: unknown }).name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/** "instagram (social), campaign spring-launch, landed on /"; "unknown" for a lead from before sources were kept. */
export function sourceWords(touch: Touch | undefined) {
  if (!touch) return "unknown";
  const { source, medium, campaign, landing_page } = touch;
  return [
    `${source}${medium ? ` (${medium})` : ""}`,
    ...(campaign ? [`campaign ${campaign}`] : []),
    ...(landing_page ? [`landed on ${landing_page}`] : []),
  ].join(", ");
}

/** Whether a chef's page has a number to show: a key its first sign-up record has. */
export async function isChef(key: string) {
  return key.length <= 100 && (await phoneOfConsent(await database(readEnv()), key)) !== undefined;
}

// Everything kept about one number, for "did you text me?", addressed by its first sign-up record (the waitlist's
// key); undefined for a key no record has.
export async function chefOf(store: Store, key: string) {
  const phone = key.length <= 100 ? await phoneOfConsent(store, key) : undefined;
  if (!phone) return undefined;
  const [records, standings, leadIds, invitations] = await Promise.all([
    consentRecords(store, { phone }),
    consentStandings(store, [phone]),
    leadIdsOfNumber(store, phone),
    listInvitations(store, { phone }),
  ]);
  const sources = await sourcesOf(store, leadIds);
  const leads = [];
  for (const id of leadIds) {
    const lead = await leadById(store, id);
    const source = sourceWords(sources.get(id));
    if (lead) leads.push({ lead, name: nameOf(lead.payload), source, attempts: await attemptsOf(store, id) });
  }
  const latest = leads
    .filter(({ lead }) => lead.receiver === "waitlist")
    .sort((a, b) => a.lead.created_at - b.lead.created_at)
    .at(-1);
  const states = {
    state: standings.get(phone)?.state ?? "none",
    source: leads[0]?.source ?? "unknown",
    welcome: welcomeWords(latest?.lead),
    invitation: invitationWords(invitations[0]),
  };
  return { phone, name: latest?.name, ...states, ...records, leads, invitations };
}

export type Chef = NonNullable<Awaited<ReturnType<typeof chefOf>>>;

// A viewer sees where things stand, not the evidence: the number masked, no address, browser, disclosure, message
// id, name, text or answer.
export function viewersShare(chef: Chef) {
  return {
    phone: maskedPhone(chef.phone),
    state: chef.state,
    source: chef.source,
    welcome: chef.welcome,
    invitation: chef.invitation,
    consents: chef.consents.map(({ id, consented_at }) => ({ id, consented_at })),
    revocations: chef.revocations.map(({ id, revoked_at, channel, source }) => ({ id, revoked_at, channel, source })),
    renewals: chef.renewals.map(({ id, renewed_at, channel, source }) => ({ id, renewed_at, channel, source })),
    leads: chef.leads.map(({ lead: { id, receiver, state, created_at, delivered_at }, source, attempts }) => ({
      lead: { id, receiver, state, created_at, delivered_at },
      source,
      attempts,
    })),
    invitations: chef.invitations.map(({ id, wave, state, created_at, delivered_at, opened_at }) => ({
      id,
      wave,
      state,
      created_at,
      delivered_at,
      opened_at,
    })),
  };
}
