import "server-only";
import { database } from "@/server/db/connect";
import { failingReceivers } from "@/server/outbox/alert-store";
import { lastDeliveredAt, openCounts } from "@/server/outbox/outbox-store";
import { storeAnswered, storeFailed } from "@/server/outbox/alerts";
import { INVITATIONS, type ServerEnv } from "@/server/env";
import { formNames } from "@/lib/forms";
import { pingLimitStore } from "@/server/forms/limits";

export type Problem =
  "database_unreachable" | "redis_unreachable" | "receiver_failing" | "dead_leads" | "overdue_leads";

export type FormFigures = {
  pending: number;
  held: number;
  dead: number;
  /** Of the pending, those waiting for a slot of the texts budget. */
  waitingForBudget: number;
  /** Past the day's texts budget: waiting for an owner to release or drop them. */
  waitingForOperator: number;
  /** Seconds since the oldest pending lead came in; null when none is pending. */
  oldestPendingAgeSeconds: number | null;
  /** ISO time of the form's last delivered lead; null when none was. */
  lastDeliveredAt: string | null;
  /** ISO time its receiver started failing (its last attempt failed, none succeeded since); null while it delivers. */
  failingSince: string | null;
  /** What that receiver's last failed attempt was answered ("status 401 signature"); null while it delivers. */
  lastFailure: string | null;
};

/** The launch invitations' receiver (INVITE_WEBHOOK_URL), as a form's. */
export type InvitationFigures = {
  /** Queued or waiting for their sending hours. */
  waiting: number;
  failingSince: string | null;
  lastFailure: string | null;
};

type Health = {
  status: "ok" | "degraded";
  problems: Problem[];
  forms?: Record<string, FormFigures>;
  invitations?: InvitationFigures;
};

const emptyFigures = (): FormFigures => ({
  pending: 0,
  held: 0,
  dead: 0,
  waitingForBudget: 0,
  waitingForOperator: 0,
  oldestPendingAgeSeconds: null,
  lastDeliveredAt: null,
  failingSince: null,
  lastFailure: null,
});

// What an uptime monitor asks, answered from the database so every instance gives the same answer: one query over
// what waits, and with `figures` one more per form for its last delivery.
export async function checkHealth(env: ServerEnv, { figures = false } = {}): Promise<Health> {
  const now = Date.now();
  const problems: Problem[] = [];
  const redis = env.REDIS_URL ? pingLimitStore(env.REDIS_URL, env.REDIS_COMMAND_TIMEOUT_MS) : Promise.resolve(true);
  const forms = Object.fromEntries(formNames.map((form) => [form, emptyFigures()]));
  const invitations: InvitationFigures = { waiting: 0, failingSince: null, lastFailure: null };
  try {
    const store = await database(env);
    const counts = await openCounts(store);
    for (const [receiver, { pending, held, dead, budget, decision }] of counts) {
      if (receiver === INVITATIONS) continue;
      const form = (forms[receiver] ??= emptyFigures());
      Object.assign(form, {
        pending: pending.count,
        held: held.count,
        dead: dead.count,
        waitingForBudget: budget.count,
        waitingForOperator: decision.count,
      });
      if (pending.oldest !== undefined)
        form.oldestPendingAgeSeconds = Math.max(0, Math.floor((now - pending.oldest) / 1000));
    }
    if (figures) {
      await Promise.all(
        Object.entries(forms).map(async ([form, figure]) => {
          const last = await lastDeliveredAt(store, form);
          figure.lastDeliveredAt = last === null ? null : new Date(last).toISOString();
        }),
      );
    }
    invitations.waiting = counts.get(INVITATIONS)?.pending.count ?? 0;
    // A receiver is failing while leads of its form (or invitations) wait: one whose last was dropped has nothing left to fix.
    const waiting = (form: string) =>
      form === INVITATIONS ? invitations.waiting : (forms[form]?.pending ?? 0) + (forms[form]?.dead ?? 0);
    const failing = (await failingReceivers(store)).filter(({ form }) => waiting(form) > 0);
    for (const { form, since, lastFailure } of failing) {
      const figure = form === INVITATIONS ? invitations : (forms[form] ??= emptyFigures());
      figure.failingSince = new Date(since).toISOString();
      figure.lastFailure = lastFailure;
    }
    if (failing.length) problems.push("receiver_failing");
    const all = Object.values(forms);
    if (all.some((figure) => figure.dead > 0)) problems.push("dead_leads");
    if (all.some((figure) => (figure.oldestPendingAgeSeconds ?? 0) > env.HEALTH_MAX_PENDING_AGE_SECONDS))
      problems.push("overdue_leads");
    storeAnswered();
  } catch (error) {
    problems.unshift("database_unreachable");
    // A monitor's poll is how an outage with no visitor is noticed: the operator hears of it once.
    storeFailed(error, { during: "health" });
  }
  if (!(await redis)) problems.push("redis_unreachable");
  return { status: problems.length ? "degraded" : "ok", problems, ...(figures ? { forms, invitations } : {}) };
}
