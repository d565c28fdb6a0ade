import "server-only";
import type { Store } from "@/server/db/connect";
import { consentRecords, consentStandings, leadIdsOfNumber, phoneOfConsent } from "@/server/consent/consent-store";
import { listInvitations } from "@/server/invitations/invitation-store";
import { attemptsOf, leadById } from "@/server/leads/lead-store";

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

/**
 * Everything the site keeps about one number, for "did you text me?": where
 * its consent stands, each consent record with the disclosure text the chef
 * saw, the revocations and renewals, its leads with their delivery logs, and
 * its invitation with the answer. Addressed by the number's first sign-up
 * record (the waitlist's key); undefined for a key no record has.
 */
export async function chefOf(store: Store, key: string) {
  const phone = key.length <= 100 ? await phoneOfConsent(store, key) : undefined;
  if (!phone) return undefined;
  const [records, standings, leadIds, invitations] = await Promise.all([
    consentRecords(store, { phone }),
    consentStandings(store, [phone]),
    leadIdsOfNumber(store, phone),
    listInvitations(store, { phone }),
  ]);
  const leads = [];
  for (const id of leadIds) {
    const lead = await leadById(store, id);
    if (lead) leads.push({ lead, name: nameOf(lead.payload), attempts: await attemptsOf(store, id) });
  }
  return { phone, state: standings.get(phone)?.state ?? "none", ...records, leads, invitations };
}
