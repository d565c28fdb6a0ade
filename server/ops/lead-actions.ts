import "server-only";
import { reviewReceivers } from "@/server/outbox/alerts";
import { database } from "@/server/db/connect";
import type { ServerEnv } from "@/server/env";
import { dropLead } from "@/server/outbox/outbox-store";
import { deadLeads, dueNow } from "@/server/forms/leads";
import { insertActivity } from "@/server/operators/activity-store";
import type { Actor } from "@/server/operators/operators";
import { runTasks } from "./scheduler";

/**
 * What an operator does to the leads, from `npm run leads` or the console:
 * the same two functions, each written to the activity log (who, what, how
 * many rows; a lead's webhook-id, never its values).
 */

/**
 * Sends leads now, as the operator's: one by its webhook-id, every dead one,
 * or every pending and held one (due or not); then the alerts' review. The
 * schedule's lead task does the sending, so a lead goes once however many
 * ask at the same time.
 */
export async function redeliverLeads(
  env: ServerEnv,
  { id, dead = false, by }: { id?: string; dead?: boolean; by: Actor },
) {
  const { leads: summary } = await runTasks(["leads", "alerts review"], {
    env,
    via: "operator",
    leads: {
      sender: "operator",
      id,
      // Everything pending, due or not, and held leads whose form has a URL again; or only the dead.
      due: dead ? () => deadLeads : () => dueNow(Number.MAX_SAFE_INTEGER),
    },
  });
  if (!summary) throw new Error("the lead task did not run");
  await insertActivity(await database(env), {
    ...by,
    action: "redeliver",
    subject: id ?? (dead ? "every dead lead" : "every open lead"),
    rows: summary.delivered,
  });
  return summary;
}

/** Deletes one open lead and its delivery log; false when there is none. The alerts' review follows at once. */
export async function dropLeadById(env: ServerEnv, { id, by }: { id: string; by: Actor }) {
  const store = await database(env);
  if (!(await dropLead(store, id))) return false;
  await insertActivity(store, { ...by, action: "drop", subject: id, rows: 1 });
  // The last waiting lead of a failing receiver dropped: /api/health clears now, the alert channel within its grace.
  await reviewReceivers(store, env);
  return true;
}
