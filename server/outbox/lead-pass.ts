import "server-only";
import { database } from "@/server/db/connect";
import { readEnv, type ServerEnv } from "@/server/env";
import { formNames, isFormName } from "@/lib/forms";
import { CLAIM_MARGIN_MS, newClaim, type Claim } from "@/server/outbox/claims";
import { runPass, type DeliveryKind, type PassSummary } from "@/server/outbox/pass";
import type { ProbeKind } from "@/server/outbox/probe";
import type { Store } from "@/server/db/connect";
import type { LeadRow } from "./lead";
import { claimById, claimNextLead, releaseWaiting, type LeadSelection } from "./lead-store";
import { sendClaimed, type Sender, type Sent } from "./send";

export type LeadPassSummary = PassSummary<Sent["state"]>;

export type PassOptions = {
  sender?: Sender;
  /** Which leads: by default the pending ones due now, and held ones whose form has a URL again. */
  selection?: (now: number) => LeadSelection;
  /** One lead by its webhook-id, whatever its schedule says. */
  id?: string;
  budgetMs?: number;
  /** True once the server is stopping: the pass claims nothing more, and finishes the attempts it started. */
  stopping?: () => boolean;
};

const formsWithUrl = () => {
  const { webhooks } = readEnv();
  return formNames.filter((form) => webhooks[form].url);
};
export const dueNow = (now: number): LeadSelection => ({ pendingDueBy: now, heldForms: formsWithUrl() });

/** A lead's claim: its attempt's whole timeout and a margin, so no other pass takes it while the attempt may still answer. */
const attemptClaim = (env: ServerEnv) => newClaim(env.WEBHOOK_ATTEMPT_TIMEOUT_MS + CLAIM_MARGIN_MS);

const leadStates = ["delivered", "pending", "dead", "held", "unreadable"] as const satisfies readonly Sent["state"][];

/**
 * Sends the leads that are due, REDELIVERY_CONCURRENCY at a time, through
 * the delivery pass (server/outbox/pass.ts): each claimed first, a form's
 * receiver paused after failures in a row, within `budgetMs`. Run by every
 * server on a timer, by the cron route, and by the operator's command
 * (server/schedule).
 */
export async function redeliveryPass(env: ServerEnv, options: PassOptions): Promise<LeadPassSummary> {
  const { sender = "pass", selection = dueNow, budgetMs = env.REDELIVERY_PASS_BUDGET_MS } = options;
  const store = await database(env);
  let byIdLeft = options.id !== undefined;

  const claimed = async ({ sent, paused }: { sent: readonly string[]; paused: readonly string[] }, claim: Claim) => {
    if (options.id !== undefined) {
      if (!byIdLeft) return undefined;
      byIdLeft = false;
      return claimById(store, options.id, claim);
    }
    return claimNextLead(store, claim, { ...selection(Date.now()), skipForms: paused, skipIds: sent });
  };
  const leads: DeliveryKind<{ row: LeadRow; claim: Claim }, Sent["state"]> = {
    states: leadStates,
    async next(skip) {
      const claim = attemptClaim(env);
      const row = await claimed(skip, claim);
      return row && { claimed: { row, claim }, id: row.id, receiver: row.form };
    },
    async send({ row, claim }) {
      const { state, delivery } = await sendClaimed({ store, row, claim, env, sender });
      // A held lead called no receiver, nor did an unreadable one.
      return { state, answered: delivery.via !== "webhook" || state === "unreadable" ? undefined : delivery.ok };
    },
  };
  return runPass(leads, { concurrency: env.REDELIVERY_CONCURRENCY, budgetMs, stopping: options.stopping });
}

/**
 * The leads' part in the probe of a failing receiver (a form's): the lead of
 * that form due first is sent ahead of its schedule (sender "probe"); failed,
 * it keeps its place and spends no round; delivered, every waiting lead of
 * the form is due now, and the lead pass that follows sends them.
 */
export const leadProbe = (store: Store, env: ServerEnv): ProbeKind => ({
  owns: (receiver) => isFormName(receiver) && Boolean(env.webhooks[receiver].url),
  async probe(form) {
    const claim = attemptClaim(env);
    const row = await claimNextLead(store, claim, { pendingDueBy: Number.MAX_SAFE_INTEGER, form });
    if (!row) return undefined;
    const { state } = await sendClaimed({ store, row, claim, env, sender: "probe" });
    if (state === "delivered") await releaseWaiting(store, form, Date.now());
    return { state, answered: state === "delivered" };
  },
});
