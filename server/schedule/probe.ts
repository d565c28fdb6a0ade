import "server-only";
import { claimProbe, failingReceivers } from "@/server/alerts/alert-store";
import type { Store } from "@/server/db/connect";
import type { ServerEnv } from "@/server/env";
import { probeInvitations } from "@/server/invitations/invitation-pass";
import { CLAIM_MARGIN_MS, newClaim } from "@/server/delivery/claims";
import { claimNextLead, releaseWaiting } from "@/server/leads/lead-store";
import { INVITATIONS, type Listener } from "@/server/delivery/outcomes";
import { sendClaimed } from "@/server/leads/send";
import { logEvent } from "@/server/log";
import { readWebhook } from "@/server/delivery/receiver-settings";

/** A receiver probed, and what became of its probe. */
export type Probed = { form: string; state: string };

/**
 * While a form's receiver fails, its leads wait for their schedule, which
 * after a few failed rounds puts the next attempt half an hour to hours
 * away, however soon the workflow is back. So every
 * REDELIVERY_PROBE_SECONDS (60), one pass, on one instance (the receivers
 * row is the claim), sends the lead of that form that is due first, ahead of
 * its schedule: failed, the lead keeps its place and spends no round of it
 * (sender "probe"); answered, every waiting lead of the form is made due now
 * and the same pass sends them. The invitations' workflow is probed the
 * same way, with the first invitation a failure put back in the queue
 * (probeInvitations): its checks and the pace hold, and the invitations' pass
 * that follows sends what the answer made due. `which` picks the receivers
 * (the lead task's forms, the invitations task's workflow). Returns the
 * receivers probed, and what became of each probe.
 */
export async function probeFailingReceivers(
  store: Store,
  env: ServerEnv,
  listener: Listener,
  which: (receiver: string) => boolean = () => true,
) {
  const probed: Probed[] = [];
  for (const { form } of await failingReceivers(store)) {
    if (!which(form)) continue;
    if (form !== INVITATIONS && !readWebhook(form).url) continue;
    const now = Date.now();
    if (!(await claimProbe(store, form, now, env.REDELIVERY_PROBE_SECONDS * 1000))) continue;
    if (form === INVITATIONS) {
      const state = await probeInvitations(store, env, listener);
      logEvent(state === "texted" || state === "refused" ? "info" : "warn", {
        event: "receiver_probed",
        form,
        outcome: state,
      });
      probed.push({ form, state });
      continue;
    }
    const claim = newClaim(env.WEBHOOK_ATTEMPT_TIMEOUT_MS + CLAIM_MARGIN_MS);
    const row = await claimNextLead(store, claim, { pendingDueBy: Number.MAX_SAFE_INTEGER, form }, now);
    if (!row) continue;
    const { state } = await sendClaimed({ store, row, claim, env, sender: "probe", listener });
    if (state === "delivered") await releaseWaiting(store, form, Date.now());
    logEvent(state === "delivered" ? "info" : "warn", { event: "receiver_probed", form, outcome: state });
    probed.push({ form, state });
  }
  return probed;
}
