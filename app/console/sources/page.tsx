import type { Metadata } from "next";
import { ConsoleFrame } from "@/components/console/console-frame";
import { HeaderRow, SpanLinks, WideTable } from "@/components/console/console-table";
import { requirePageOperator } from "@/server/console/session";
import { sourceSpans, sourcesTable } from "@/server/console/sources";

export const metadata: Metadata = { title: "Sources" };

/** Where chefs come from: visits, sign-ups and quote requests by source and campaign. */
export default async function SourcesPage({ searchParams }: { searchParams: Promise<{ days?: string | string[] }> }) {
  const signed = await requirePageOperator("/console/sources");
  const asked = Number((await searchParams).days);
  const days = sourceSpans.find((span) => span === asked) ?? 30;
  const rows = await sourcesTable(signed.store, days);
  return (
    <ConsoleFrame signed={signed} current="/console/sources" title="Where chefs come from">
      <p className="mt-2">
        A visit is a person&apos;s view of a page that came from outside the site; a sign-up or quote request counts
        under the source of the visitor&apos;s first visit. Days in UTC. No address or identifier of anyone is kept.
      </p>
      <SpanLinks path="/console/sources" spans={sourceSpans} days={days} />
      {rows.length === 0 ? (
        <p className="mt-4">No visits or leads in the last {days} days.</p>
      ) : (
        <WideTable label="Sources" className="mt-4">
          <table className="w-full text-sm">
            <caption className="sr-only">Visits, sign-ups and quote requests by source, the last {days} days</caption>
            <HeaderRow
              labels={["Source", "Visits", "Sign-ups", "Quote requests", "Conversion"]}
              right={["Visits", "Sign-ups", "Quote requests", "Conversion"]}
            />
            <tbody>
              {rows.map((row) => (
                <tr key={`${row.source} ${row.campaign ?? ""}`} className="border-b border-stone-200">
                  <th scope="row" className={`py-2 pr-4 text-left break-all ${row.campaign ? "pl-6 font-normal" : ""}`}>
                    {row.campaign ? `campaign ${row.campaign}` : row.source}
                  </th>
                  <td className="py-2 pr-4 text-right tabular-nums">{row.visits}</td>
                  <td className="py-2 pr-4 text-right tabular-nums">{row.signups}</td>
                  <td className="py-2 pr-4 text-right tabular-nums">{row.quotes}</td>
                  <td className="py-2 text-right tabular-nums">{row.conversion}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
    </ConsoleFrame>
  );
}
