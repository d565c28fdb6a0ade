import type { Metadata } from "next";
import { ConsoleFrame, Outcome } from "@/components/console/console-frame";
import { HeaderRow, plainButton, utc, WideTable } from "@/components/console/console-table";
import { maskedPhone } from "@/server/console/waitlist";
import { maskedEmail, quoteRequests, QUOTES_SHOWN } from "@/server/console/quotes";
import { requirePageOperator } from "@/server/console/session";
import { readEnv } from "@/server/env";

export const metadata: Metadata = { title: "Quote requests" };

const outcomes: Record<string, string> = {
  handled: "Marked handled.",
  unknown: "No kept quote request has that id: nothing was marked.",
};

/** Every quote request the site keeps, held, failing or delivered, newest first; an owner sees it whole. */
export default async function QuotesPage({ searchParams }: { searchParams: Promise<{ done?: string }> }) {
  const signed = await requirePageOperator("/console/quotes");
  const { operator, store } = signed;
  const owner = operator.role === "owner";
  const quotes = await quoteRequests(store);
  const outcome = outcomes[(await searchParams).done ?? ""];
  return (
    <ConsoleFrame signed={signed} current="/console/quotes" title="Quote requests">
      {outcome ? <Outcome>{outcome}</Outcome> : null}
      <p className="mt-2">
        {quotes.length === 0 ? "None kept." : `${quotes.length} kept, newest first`}
        {quotes.length === QUOTES_SHOWN ? ` (the newest ${QUOTES_SHOWN}; the CSV in Exports holds every one)` : ""}.
        Each is kept until it is delivered, then {readEnv().LEAD_RETENTION_DAYS} days more; times in UTC
        {owner ? "" : ". Viewers see names, addresses and numbers masked, and no message"}.
      </p>
      {quotes.length ? (
        <WideTable label="Quote requests" className="mt-4">
          <table className="w-full text-sm">
            <HeaderRow labels={["Name", "Email", "Phone", "Clients", "Tools", "Message", "Received", "Handled"]} />
            <tbody>
              {quotes.map(({ id, values, receivedAt, state, keptUntil, handledAt }) => (
                <tr key={id} className="border-b border-stone-200 align-top">
                  <td className="py-2 pr-4">{owner ? values.name : `${values.name?.[0] ?? ""}•••`}</td>
                  <td className="py-2 pr-4 break-all">{owner ? values.email : maskedEmail(values.email ?? "")}</td>
                  <td className="py-2 pr-4 tabular-nums">
                    {!values.phone ? "" : owner ? values.phone : maskedPhone(values.phone)}
                  </td>
                  <td className="py-2 pr-4">{values.clientCount}</td>
                  <td className="py-2 pr-4 whitespace-pre-wrap">{owner ? values.currentTools : ""}</td>
                  <td className="py-2 pr-4 whitespace-pre-wrap">{owner ? values.message : ""}</td>
                  <td className="py-2 pr-4 tabular-nums">
                    {utc(receivedAt)}
                    <br />
                    {state}
                    {keptUntil === null ? "" : `, kept until ${utc(keptUntil).slice(0, 10)}`}
                  </td>
                  <td className="py-2">
                    {handledAt !== null ? (
                      `Handled ${utc(handledAt)}`
                    ) : owner ? (
                      <form method="post" action="/console/quotes/handle">
                        <input type="hidden" name="id" value={id} />
                        <button type="submit" className={plainButton}>
                          Mark handled
                        </button>
                      </form>
                    ) : (
                      "Not yet"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      ) : null}
    </ConsoleFrame>
  );
}
