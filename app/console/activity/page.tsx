import type { Metadata } from "next";
import Link from "next/link";
import { ConsoleFrame } from "@/components/console/console-frame";
import { Details, HeaderRow, utc, WideTable } from "@/components/console/console-table";
import { readEnv } from "@/server/env";
import { requirePageOperator } from "@/server/console/session";
import { activityPage, cursorOf } from "@/server/operators/activity-store";

export const metadata: Metadata = { title: "Activity" };

const PAGE = 100;

/**
 * Every operator action, from the console and the commands, newest first: who,
 * when, what, how many rows. It names a wave, a webhook-id or an operator at
 * most, never a chef. Older lines a page at a time (`?after=` the last line's time and id).
 */
export default async function ActivityPage({ searchParams }: { searchParams: Promise<{ after?: string }> }) {
  const signed = await requirePageOperator("/console/activity");
  const { store } = signed;
  const after = cursorOf((await searchParams).after);
  const lines = await activityPage(store, { limit: PAGE, ...(after ? { after } : {}) });
  return (
    <ConsoleFrame signed={signed} current="/console/activity" title="Activity">
      <p className="mt-2">Kept for {readEnv().AUDIT_RETENTION_DAYS} days. Times in UTC.</p>
      {lines.length === 0 ? (
        <p className="mt-6">Nothing recorded{after ? " before that" : ""}.</p>
      ) : (
        <WideTable label="Activity" className="mt-6">
          <table className="w-full text-sm">
            <HeaderRow labels={["When", "Who", "From", "What", "Of", "Rows"]} right={["Rows"]} />
            <tbody>
              {lines.map((line) => (
                <tr key={line.id} className="border-b border-stone-200">
                  <td className="py-1 pr-4 tabular-nums">{utc(line.at)}</td>
                  <td className="py-1 pr-4">{line.actor}</td>
                  <td className="py-1 pr-4">{line.via}</td>
                  <td className="py-1 pr-4">{line.action}</td>
                  <td className="py-1 pr-4 break-all">
                    {line.subject?.startsWith("msg_") ? (
                      <Details rows={[["Webhook id", line.subject]]} />
                    ) : (
                      line.subject
                    )}
                  </td>
                  <td className="py-1 text-right tabular-nums">{line.rows ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      {lines.length === PAGE ? (
        <p className="mt-4">
          <Link
            href={`/console/activity?after=${lines.at(-1)!.at}~${lines.at(-1)!.id}`}
            className="underline underline-offset-4"
          >
            Older
          </Link>
        </p>
      ) : null}
    </ConsoleFrame>
  );
}
