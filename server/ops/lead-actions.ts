import "server-only";
import { reviewReceivers } from "@/server/outbox/alerts";
import { database, inTransaction } from "@/server/db/connect";
import { forgetConsentsOf } from "@/server/consent/consent-store";
import type { ServerEnv } from "@/server/env";
import { dropAwaitingRelease, dropLead } from "@/server/outbox/outbox-store";
import { deadLeads, dueNow } from "@/server/forms/leads";
import { insertActivity } from "@/server/operators/activity-store";
import type { Actor } from "@/server/operators/operators";
import { runTasks } from "./scheduler";

/**
 * What an operator does to the leads, from `npm run leads` or the console: the same two functions, each written to the
 * activity log (who, what, how many rows; a lead's webhook-id, never its values).
 */

type Redelivery = { id?: string; ids?: readonly string[]; dead?: boolean; by: Actor; subject?: string };

/**
 * Sends leads now, as the operator's: by their webhook-ids, every dead one, or every pending and held one (due or not);
 * then the alerts' review. The schedule's lead task does the sending, so a lead goes once however many ask at the same
 * time.
 */
export async function redeliverLeads(
  env: ServerEnv,
  { id, ids = id === undefined ? undefined : [id], dead = false, by, subject }: Redelivery,
) {
  const { leads: summary } = await runTasks(["leads", "alerts review"], {
    env,
    via: "operator",
    leads: {
      sender: "operator",
      ids,
      // Everything pending, due or not, and held leads whose form has a URL again; or only the dead.
      due: dead ? () => deadLeads : () => dueNow(Number.MAX_SAFE_INTEGER),
    },
  });
  if (!summary) throw new Error("the lead task did not run");
  await insertActivity(await database(env), {
    ...by,
    action: "redeliver",
    subject: subject ?? id ?? (dead ? "every dead lead" : "every open lead"),
    rows: summary.delivered,
  });
  return summary;
}

/** Deletes one open lead and its delivery log; false when there is none. The alerts' review follows at once. */
export async function dropLeadById(env: ServerEnv, { id, by }: { id: string; by: Actor }) {
  if (await decideAwaiting(env, { ids: [id], subject: id, release: false, by })) return true;
  const store = await database(env);
  if (!(await dropLead(store, id))) return false;
  await insertActivity(store, { ...by, action: "drop", subject: id, rows: 1 });
  // The last waiting lead of a failing receiver dropped: /api/health clears now, the alert channel within its grace.
  await reviewReceivers(store, env);
  return true;
}

/**
 * Sign-ups past the day's texts budget, an owner's decision: released, they are sent now, the budget theirs to spend;
 * dropped, they go with their values and consent records, never texted.
 */
export async function decideAwaiting(
  env: ServerEnv,
  { ids, subject, release, by }: { ids: readonly string[]; subject: string; release: boolean; by: Actor },
) {
  if (release) return (await redeliverLeads(env, { ids, by, subject })).delivered;
  const store = await database(env);
  const dropped = await inTransaction(store, async (tx) => {
    const gone = await dropAwaitingRelease(tx, ids);
    await forgetConsentsOf(tx, gone);
    return gone.length;
  });
  if (!dropped) return 0;
  await insertActivity(store, { ...by, action: "drop", subject, rows: dropped });
  await reviewReceivers(store, env);
  return dropped;
}
