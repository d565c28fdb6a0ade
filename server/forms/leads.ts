import "server-only";
import { createHash } from "node:crypto";
import { formNames, isFormName, type FormName } from "@/lib/forms";
import { database, type Store } from "@/server/db/connect";
import { readEnv, type ServerEnv } from "@/server/env";
import {
  openLeadStates,
  recordWelcome,
  type Claim,
  type Due,
  type LeadRow,
  type OutboxRow,
} from "@/server/outbox/outbox-store";
import { sendDue, type PassSummary, type Sending } from "@/server/outbox/pass";
import { objectOf, sendable, sendClaimed, type Kind, type Sender } from "@/server/outbox/send";
import { textedAnswer } from "@/server/outbox/webhook";

export type { LeadRow };

/** A form's lead: its receiver's 2xx is its delivery; the SMS workflow's also says whether it texted the welcome. */
export const leadKind: Kind = {
  owns: isFormName,
  webhook: (env, form) => env.webhooks[form as FormName],
  budget: (env, form) => env.ceilings[form as FormName],
  words: { pending: "pending", dead: "dead", held: "held", answered: ["delivered"], overBudget: "awaiting_release" },
  readAnswer: true,
  answer: () => "delivered",
  async settling(tx, { row }, { state, result }) {
    const welcome = result.ok ? textedAnswer(result.body) : undefined;
    if (welcome) await recordWelcome(tx, row.id, welcome);
    return state;
  },
  events: { pending: "lead_pending", dead: "lead_dead", redelivered: "lead_redelivered" },
  facts: ({ row }, now) => leadFacts(row, now),
};

/** The webhook's values a row holds, or undefined for a row nobody should send. */
export const valuesOf = (row: OutboxRow) => (sendable(leadKind, row) ? objectOf(row.payload) : undefined);

/** The same form with the same values (already normalised by the schema) has the same key. */
export function leadKey(form: string, payload: Record<string, unknown>) {
  return createHash("sha256")
    .update(`${form}\n${JSON.stringify(payload)}`)
    .digest("hex");
}

/** Where a lead stands, for the operator's log: no values. */
export function leadFacts(lead: Pick<OutboxRow, "receiver" | "id" | "attempts" | "created_at">, now: number) {
  return {
    form: lead.receiver,
    webhookId: lead.id,
    attempts: lead.attempts,
    ageSeconds: Math.round((now - lead.created_at) / 1000),
  };
}

/** The visitor's claim holds its whole deadline; a pass's, its attempt's timeout (with the engine's margin). */
export const sendLead = (
  store: Store | undefined,
  taken: { row: OutboxRow; claim: Claim },
  env: ServerEnv,
  sender: Sender,
  started?: number,
) => sendClaimed(leadKind, { store, ...taken, own: undefined, env, sender, started });

const outcomes = ["delivered", "pending", "dead", "held", "unreadable", "awaiting_release"] as const;
type Outcome = (typeof outcomes)[number];
export type LeadPassSummary = PassSummary<Outcome>;

export type PassOptions = {
  sender?: Sender;
  /** Which leads: by default the pending ones due now, and held ones whose form has a URL again. */
  due?: (now: number) => Due;
  /** These leads by their webhook-ids, whatever their schedule says. */
  ids?: readonly string[];
  budgetMs?: number;
  /** True once the server is stopping: the pass claims nothing more, and finishes the attempts it started. */
  stopping?: () => boolean;
};

const formsWithUrl = () => {
  const { webhooks } = readEnv();
  return formNames.filter((form) => webhooks[form].url);
};
export const dueNow = (by: number): Due => ({
  wanted: [
    { receivers: formNames, states: ["pending"], by },
    { receivers: formsWithUrl(), states: ["held"] },
  ],
});
export const deadLeads: Due = { wanted: [{ receivers: formNames, states: ["dead"] }] };

const sending = (due: (now: number) => Due): Sending<undefined, Outcome> => ({
  kind: leadKind,
  due,
  outcomes,
  outcome: (state) => state as Outcome,
});

/** Sends the leads that are due, REDELIVERY_CONCURRENCY at a time, within `budgetMs`. */
export async function redeliveryPass(env: ServerEnv, options: PassOptions): Promise<LeadPassSummary> {
  const { sender, ids, due = dueNow, budgetMs = env.REDELIVERY_PASS_BUDGET_MS, stopping } = options;
  const named = (): Due => ({ wanted: [{ receivers: formNames, states: openLeadStates }], ids });
  return sendDue(await database(env), env, sending(ids === undefined ? due : named), {
    concurrency: env.REDELIVERY_CONCURRENCY,
    budgetMs,
    stopping,
    sender,
  });
}

/** How the schedule's probe sends a form's lead. */
export const leadSending = sending(dueNow);
