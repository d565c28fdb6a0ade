import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import { consentStates, recordConsent, type ConsentEvidence } from "@/server/consent/consent-store";
import { database, inTransaction, type Store } from "@/server/db/connect";
import type { ServerEnv } from "@/server/env";
import type { FormName } from "@/lib/forms";
import { leadKey, sendLead, type LeadRow } from "@/server/forms/leads";
import { recordSource } from "@/server/forms/source-store";
import type { Touch } from "@/server/web/visits";
import {
  newWebhookId,
  awaitingStartAmong,
  claimLead,
  insertLead,
  leadById,
  latestLeadAmong,
  newLead,
  openLeadByKey,
  CLAIM_MARGIN_MS,
  newClaim,
  type Claim,
} from "@/server/outbox/outbox-store";
import { leadsOfNumber } from "@/server/consent/consent-changes";
import { storeAnswered, storeFailed } from "@/server/outbox/alerts";
import { deliveryOf, type Delivery } from "@/server/outbox/send";

const WAIT_POLL_MS = 100;

/** `kept`, nothing sent: `repeat`, the number is on the list already; `awaiting_start`, its consent was revoked. */
type Kept = { kept: LeadRow; via: "repeat" | "awaiting_start" };
type Taken = { row: LeadRow; inserted?: true } | { delivered: LeadRow } | { busy: LeadRow } | Kept;
type Found = Kept | { inserted?: LeadRow; open?: LeadRow };

/**
 * One transaction: no lead without its consent, no consent without its lead. A number on the list is welcomed once;
 * one that revoked puts nothing back in force (anyone can type a number) and waits for a START from the phone.
 */
function insertWithConsent(
  store: Store,
  { fresh, claim, consent, touch }: Pick<Submission, "consent" | "touch"> & { fresh: LeadRow; claim: Claim },
) {
  const kept = async (tx: Store, lead: LeadRow | undefined) => {
    if (lead && touch) await recordSource(tx, { id: lead.id, form: lead.receiver, at: lead.created_at }, touch);
    return lead;
  };
  return inTransaction(store, async (tx): Promise<Found> => {
    if (consent) {
      const state = (await consentStates(tx, [consent.phone])).get(consent.phone);
      const number = state === "none" ? undefined : await leadsOfNumber(tx, consent.phone);
      if (state === "revoked") {
        const waiting =
          (await awaitingStartAmong(tx, fresh.receiver, number!.ids)) ??
          // Unclaimed, until the phone texts START.
          (await kept(tx, await insertLead(tx, { ...fresh, state: "awaiting_start" }))) ??
          (await openLeadByKey(tx, fresh.dedupe_key!))!;
        await recordConsent(tx, { evidence: consent, leadId: waiting.id, at: fresh.created_at, putsInForce: false });
        return { kept: waiting, via: "awaiting_start" };
      }
      // Only leads since the number's last revocation count: a number that left and came back is welcomed again.
      const prior = number && (await latestLeadAmong(tx, fresh.receiver, number.ids, number.revokedAt));
      if (prior) {
        await recordConsent(tx, { evidence: consent, leadId: prior.id, at: fresh.created_at });
        const waiting = prior.state === "pending" || prior.state === "dead";
        return waiting ? { open: prior } : { kept: prior, via: "repeat" };
      }
    }
    const inserted = await kept(tx, await insertLead(tx, fresh, claim));
    const open = inserted ? undefined : await openLeadByKey(tx, fresh.dedupe_key!);
    const lead = inserted ?? open;
    if (lead && consent) await recordConsent(tx, { evidence: consent, leadId: lead.id, at: fresh.created_at });
    return { inserted, open };
  });
}

/** A previous try of the same values finds its open lead, so the workflow sees one webhook-id; one a pass is sending is waited for. */
async function claimLeadOf(
  store: Store,
  {
    fresh,
    claim,
    env,
    started,
    consent,
    touch,
  }: Pick<Submission, "env" | "started" | "consent" | "touch"> & { fresh: LeadRow; claim: Claim },
): Promise<Taken> {
  const waitEnds = started + env.WEBHOOK_DEADLINE_MS - 250;
  for (;;) {
    const found = await insertWithConsent(store, { fresh, claim, consent, touch });
    if ("kept" in found) return found;
    const { inserted, open } = found;
    if (inserted) return { row: inserted, inserted: true };
    if (!open) continue; // Delivered meanwhile: these values are a new lead.
    for (;;) {
      const claimed = await claimLead(store, open.id, claim);
      if (claimed) return { row: claimed };
      const now = await leadById(store, open.id);
      if (!now) break;
      if (now.state === "delivered") return { delivered: now };
      if (performance.now() >= waitEnds) return { busy: now };
      await sleep(WAIT_POLL_MS);
    }
  }
}

export type Submission = {
  form: FormName;
  payload: Record<string, unknown>;
  env: ServerEnv;
  started: number;
  consent?: ConsentEvidence;
  /** How the visitor came: kept beside a new lead, never sent. */
  touch?: Touch;
};

/**
 * Kept before the first attempt, so a failure the visitor is told about is redelivered. Without a database a contact
 * request is sent once; a sign-up is refused: no number is texted without the record that it agreed.
 */
export async function submitLead(submission: Submission): Promise<Delivery> {
  const { form, payload, env, started, consent, touch } = submission;
  const now = Date.now();
  // One reading of the clock: the lead's time and its claim's run from the same moment.
  const claim = newClaim(env.WEBHOOK_DEADLINE_MS + CLAIM_MARGIN_MS, now);
  const fresh = newLead({
    id: newWebhookId(),
    receiver: form,
    dedupe_key: leadKey(form, payload),
    payload: JSON.stringify(payload),
    created_at: now,
    next_attempt_at: now + env.REDELIVERY_SCHEDULE_SECONDS[0]! * 1000,
  });

  let store: Store | undefined;
  let taken: Taken;
  try {
    store = await database(env);
    taken = await claimLeadOf(store, { fresh, claim, env, started, consent, touch });
    storeAnswered();
  } catch (error) {
    storeFailed(error, { form });
    if (consent) return deliveryOf(fresh.id, started, { ok: false, reason: "unrecorded" });
    store = undefined;
    taken = { row: fresh, inserted: true };
  }

  if ("delivered" in taken) return deliveryOf(taken.delivered.id, started, { ok: true });
  if ("kept" in taken) {
    await store!.durable();
    return deliveryOf(taken.kept.id, started, { ok: true }, { via: taken.via });
  }
  if ("busy" in taken) return deliveryOf(taken.busy.id, started, { ok: false, reason: "busy" });
  return (await sendLead(store, { row: taken.row, claim }, env, "visitor", started)).delivery;
}
