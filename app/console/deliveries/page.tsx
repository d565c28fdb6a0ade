import type { Metadata } from "next";
import Link from "next/link";
import { ConsoleFrame, Outcome } from "@/components/console/console-frame";
import { AttemptsTable, Details, Facts, plainButton, Section, utc } from "@/components/console/console-table";
import { deliveries, valuesOf } from "@/server/console/deliveries";
import { maskedPhone } from "@/server/console/waitlist";
import { requirePageOperator } from "@/server/console/session";
import type { Store } from "@/server/db/connect";
import { justDid } from "@/server/operators/activity-store";

export const metadata: Metadata = { title: "Deliveries" };

type Search = Promise<{ done?: string; id?: string; rows?: string }>;

/**
 * What the operator just did to a lead, in words: the redirect names the lead,
 * the activity log says what was done to it (a link alone reports nothing).
 */
async function outcomeOf(store: Store, actor: string, done: unknown, id: string, rows: number) {
  if (done === "unknown") return "No open lead has that webhook-id: nothing was done.";
  if (done === "released")
    return `Released: the receiver took ${rows} sign-up${rows === 1 ? "" : "s"}; any it did not take are retried on the usual schedule.`;
  if (done === "dropped-group")
    return `Dropped ${rows} sign-up${rows === 1 ? "" : "s"}, with their values and consent records.`;
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
  const rows = Number(query.rows) || 0;
  const outcome = await outcomeOf(store, operator.email, query.done, id, rows);
  return (
    <ConsoleFrame signed={signed} current="/console/deliveries" title="Deliveries">
      {outcome ? <Outcome>{outcome}</Outcome> : null}
      {seen.groups.length ? <AwaitingDecision groups={seen.groups} count={seen.awaitingCount} owner={owner} /> : null}
      <Section id="waiting" title="Leads waiting">
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
                ["Sent by the visitor", `${utc(lead.created_at)} UTC`],
                ["Next attempt", lead.state === "pending" ? `${utc(lead.next_attempt_at)} UTC` : "none scheduled"],
                ["Last failure", lead.last_failure ?? "none"],
              ]}
            />
            <Details rows={[["Webhook id", lead.id]]} />
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
                  className={plainButton}
                >
                  Drop…
                </Link>
              </div>
            ) : null}
          </article>
        ))}
      </Section>
      <Section id="kept" title="Contact requests kept">
        <p className="mt-2">
          {seen.keptCount} delivered, their values kept until retention
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
      </Section>
    </ConsoleFrame>
  );
}

/** A group's go to its decision's route; one sign-up's, to Redeliver's and Drop's. */
function DecisionButtons({ target, owner }: { target: { group: string } | { id: string }; owner: boolean }) {
  if (!owner) return null;
  const group = "group" in target;
  return (
    <div className="flex gap-3">
      <form method="post" action={group ? "/console/deliveries/decide" : "/console/deliveries/redeliver"}>
        {group ? (
          <input type="hidden" name="group" value={target.group} />
        ) : (
          <input type="hidden" name="id" value={target.id} />
        )}
        <input type="hidden" name="do" value="release" />
        <button type="submit" className="rounded-lg bg-brand-700 px-3 py-1 font-semibold text-white">
          Release
        </button>
      </form>
      <Link href={`/console/deliveries/confirm-drop?${new URLSearchParams(target)}`} className={plainButton}>
        Drop…
      </Link>
    </div>
  );
}

/** Sign-ups past the day's texts budget, grouped by what a flood shares: an owner releases or drops them. */
function AwaitingDecision({
  groups,
  count,
  owner,
}: {
  groups: Awaited<ReturnType<typeof deliveries>>["groups"];
  count: number;
  owner: boolean;
}) {
  return (
    <Section id="decision" title="Waiting for your decision">
      <p className="mt-2">
        {count} sign-up{count === 1 ? "" : "s"} came after the day&apos;s texts budget was spent: none is texted until
        an owner releases it. Released, they are sent now; dropped, they go with their values and consent records.
      </p>
      {groups.map((group) => (
        <article key={group.key} className="mt-4 rounded-lg border border-stone-300 bg-white p-4">
          <h3 className="font-semibold">
            Numbers starting {group.prefix}, received from {group.hour}: {group.leads.length}
          </h3>
          <div className="mt-3">
            <DecisionButtons target={{ group: group.key }} owner={owner} />
          </div>
          <details className="mt-3">
            <summary>Each sign-up</summary>
            <ul className="mt-2 space-y-2">
              {group.leads.map((lead) => {
                const values = valuesOf(lead.payload) ?? {};
                return (
                  <li key={lead.id} className="flex flex-wrap items-center gap-3">
                    <span>
                      {owner ? `${values.name ?? ""}, ` : ""}
                      {maskedPhone(values.phone ?? "")}, {utc(lead.created_at)} UTC
                    </span>
                    <DecisionButtons target={{ id: lead.id }} owner={owner} />
                  </li>
                );
              })}
            </ul>
          </details>
        </article>
      ))}
    </Section>
  );
}
