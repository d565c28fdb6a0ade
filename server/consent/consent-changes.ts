import "server-only";
import {
  consentStates,
  lastRevokedAt,
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
 * Records that a number's consent ended and stops its open leads, in one
 * transaction, unless a later START keeps it in force. The leads are the
 * ones its consent records name (by key, not by the values they carry).
 * A replayed call (its message_id recorded already) changes nothing. An
 * operator's (`by`) is an activity line too, in the same transaction: its
 * channel, never the number.
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
 * Records that the phone texted START after its consent was revoked, and lets
 * go the web sign-ups of the number that waited for it, in one transaction:
 * each becomes pending, due now; unless a later STOP keeps it revoked. Only
 * the workflow records a renewal, on a call signed like the revocation's; a
 * replayed call changes nothing.
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
  const [ids, revokedAt] = await Promise.all([leadIdsOfNumber(store, phone), lastRevokedAt(store, phone)]);
  return { ids, revokedAt: revokedAt ?? -1 };
}
