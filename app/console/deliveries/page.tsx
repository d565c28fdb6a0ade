import type { Metadata } from "next";
import Link from "next/link";
import { ConsoleFrame, Outcome } from "@/components/console/console-frame";
import { AttemptsTable, Facts, utc } from "@/components/console/console-table";
import { deliveries } from "@/server/console/deliveries";
import { requirePageOperator } from "@/server/console/session";
import type { Store } from "@/server/db/connect";
import { justDid } from "@/server/operators/activity-store";

export const metadata: Metadata = { title: "Deliveries" };

type Search = Promise<{ done?: string; id?: string }>;

/**
 * What the operator just did to a lead, in words: the redirect names the lead,
 * the activity log says what was done to it (a link alone reports nothing).
 */
async function outcomeOf(store: Store, actor: string, done: unknown, id: string) {
  if (done === "unknown") return "No open lead has that webhook-id: nothing was done.";
  if (done === "dropped")
    return (await justDid(store, { actor, action: "drop", subject: id }))
      ? `Dropped ${id} and its delivery log.`
      : undefined;
  if (done !== "delivered" && done !== "tried") return undefined;
  const did = await justDid(store, { actor, action: "redeliver", subject: id });
  if (!did) return undefined;
  return did.rows > 0
    ? `Redelivered ${id}: the receiver took it.`
    : `Tried ${id} again: not delivered (it stays in the list below, or another sender holds it).`;
}

export default async function DeliveriesPage({ searchParams }: { searchParams: Search }) {
  const signed = await requirePageOperator("/console/deliveries");
  const { operator, store } = signed;
  const query = await searchParams;
  const owner = operator.role === "owner";
  const seen = await deliveries(store);
  const id = typeof query.id === "string" && /^msg_[\w-]{1,80}$/.test(query.id) ? query.id : "";
  const outcome = await outcomeOf(store, operator.email, query.done, id);
  return (
    <ConsoleFrame signed={signed} current="/console/deliveries" title="Deliveries">
      {outcome ? <Outcome>{outcome}</Outcome> : null}
      <section aria-labelledby="waiting" className="mt-8">
        <h2 id="waiting" className="text-xl font-bold">
          Leads waiting
        </h2>
        {seen.open.length === 0 ? (
          <p className="mt-2">None: every lead was delivered.</p>
        ) : seen.waitingCount > seen.open.length ? (
          <p className="mt-2">
            The oldest {seen.open.length} of {seen.waitingCount} waiting; the rest show here as these go, and{" "}
            <code>npm run leads -- list</code> lists every one.
          </p>
        ) : null}
        {seen.open.map(({ lead, attempts }) => (
          <article key={lead.id} className="mt-4 rounded-lg border border-stone-300 bg-white p-4">
            <h3 className="font-semibold">
              {lead.receiver}: {lead.state}
            </h3>
            <Facts
              rows={[
                ["Webhook id", lead.id],
                ["Sent by the visitor", `${utc(lead.created_at)} UTC`],
                ["Next attempt", lead.state === "pending" ? `${utc(lead.next_attempt_at)} UTC` : "none scheduled"],
                ["Last failure", lead.last_failure ?? "none"],
              ]}
            />
            <AttemptsTable attempts={attempts} />
            {owner ? (
              <div className="mt-3 flex gap-3">
                <form method="post" action="/console/deliveries/redeliver">
                  <input type="hidden" name="id" value={lead.id} />
                  <button type="submit" className="rounded-lg bg-brand-700 px-3 py-1 font-semibold text-white">
                    Redeliver
                  </button>
                </form>
                <Link
                  href={`/console/deliveries/confirm-drop?${new URLSearchParams({ id: lead.id })}`}
                  className="rounded-lg border border-stone-500 px-3 py-1"
                >
                  Drop…
                </Link>
              </div>
            ) : null}
          </article>
        ))}
      </section>
      <section aria-labelledby="kept" className="mt-10">
        <h2 id="kept" className="text-xl font-bold">
          Contact requests kept
        </h2>
        <p className="mt-2">
          {seen.keptCount} delivered, their values kept until retention (<code>LEAD_RETENTION_DAYS</code>)
          {seen.keptCount > seen.kept.length ? `; the newest ${seen.kept.length} shown` : ""}; newest first.
        </p>
        {owner
          ? seen.kept.map(({ lead, values }) => (
              <article key={lead.id} className="mt-4 rounded-lg border border-stone-300 bg-white p-4">
                <h3 className="font-semibold">{utc(lead.created_at)} UTC</h3>
                <Facts rows={Object.entries(values)} />
              </article>
            ))
          : null}
      </section>
    </ConsoleFrame>
  );
}
