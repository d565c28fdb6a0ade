import type { Metadata } from "next";
import { ConsoleFrame } from "@/components/console/console-frame";
import { downloads } from "@/server/console/downloads";
import { leftOutWords } from "@/server/console/exports";
import { requirePageOperator } from "@/server/console/session";

export const metadata: Metadata = { title: "Exports" };

/** The downloads: CSV files safe to open in a spreadsheet, each written to the activity log. An owner's page. */
export default async function ExportsPage() {
  const signed = await requirePageOperator("/console/exports", "owner");
  const { allowed, store } = signed;
  const leftOut = Object.fromEntries(
    await Promise.all(
      Object.entries(downloads).map(async ([name, download]) => [
        name,
        allowed && "leftOut" in download ? leftOutWords(await download.leftOut(store)) : undefined,
      ]),
    ),
  );
  return (
    <ConsoleFrame signed={signed} current="/console/exports" title="Exports">
      {allowed ? (
        <>
          <p className="mt-2">
            CSV files, safe to open in a spreadsheet: a value that would run as a formula starts with &apos;. Each
            download is written to the activity log. They hold personal data: keep them as you keep the database.
          </p>
          <ul className="mt-6 space-y-3">
            {Object.entries(downloads).map(([name, { label }]) => (
              <li key={name}>
                <a
                  href={`/console/exports/${name}.csv`}
                  download
                  className="font-semibold underline underline-offset-4"
                >
                  {label}
                </a>
                {leftOut[name] ? <p className="text-stone-700">{leftOut[name]}</p> : null}
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="mt-4">Only an owner exports: the files hold every number and its evidence.</p>
      )}
    </ConsoleFrame>
  );
}
