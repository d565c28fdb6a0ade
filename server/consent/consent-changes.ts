import "server-only";
import {
  consentStates,
  lastRevocations,
  leadIdsOfNumber,
  recordRenewal,
  recordRevocation,
  type Renewal,
  type Revocation,
} from "@/server/consent/consent-store";
import type { Store } from "@/server/db/connect";
import { inTransaction } from "@/server/db/connect";
import { releaseAwaitingStart, stopLeads } from "@/server/outbox/outbox-store";
import { insertActivity } from "@/server/operators/activity-store";
import type { Actor } from "@/server/operators/operators";

/** Where a number's consent stands once a change is recorded: a change older than the last of the other kind is history. */
const standingOf = async (store: Store, phone: string) => (await consentStates(store, [phone])).get(phone);

/**
 * The revocation is kept and, unless a later START keeps consent in force, the number's open leads stop (one
 * transaction). A replayed call changes nothing; an operator's is an activity line too, naming the channel only.
 */
export function revokeConsent(store: Store, revocation: Revocation, { by }: { by?: Actor } = {}) {
  return inTransaction(store, async (tx) => {
    const inserted = await recordRevocation(tx, revocation);
    if (!inserted) return { recorded: false as const, leadsStopped: 0 };
    const leadsStopped =
      (await standingOf(tx, revocation.phone)) === "in force"
        ? 0
        : await stopLeads(tx, await leadIdsOfNumber(tx, revocation.phone));
    if (by) await insertActivity(tx, { ...by, action: "revocation recorded", subject: revocation.channel, rows: 1 });
    return { recorded: true as const, id: inserted.id, leadsStopped };
  });
}

/**
 * The renewal is kept and, unless a later STOP keeps consent revoked, the number's sign-ups that waited for it are
 * due now (one transaction). Only the workflow records one; a replayed call changes nothing.
 */
export function renewConsent(store: Store, renewal: Renewal) {
  const at = renewal.at ?? Date.now();
  return inTransaction(store, async (tx) => {
    const inserted = await recordRenewal(tx, { ...renewal, at });
    if (!inserted) return { recorded: false as const, leadsReleased: 0 };
    const leadsReleased =
      (await standingOf(tx, renewal.phone)) === "revoked"
        ? 0
        : await releaseAwaitingStart(tx, await leadIdsOfNumber(tx, renewal.phone), at);
    return { recorded: true as const, id: inserted.id, leadsReleased };
  });
}

/** A number's leads, as its consent records name them, and when its consent was last revoked (-1: never). */
export async function leadsOfNumber(store: Store, phone: string) {
  const [ids, revoked] = await Promise.all([leadIdsOfNumber(store, phone), lastRevocations(store, [phone])]);
  return { ids, revokedAt: revoked.get(phone) ?? -1 };
}
