import type { Metadata } from "next";
import Link from "next/link";
import { cookies } from "next/headers";
import { ConsoleFrame } from "@/components/console/console-frame";
import { Choice, fieldClass, HeaderRow, utc, WideTable } from "@/components/console/console-table";
import { cookieOf } from "@/server/console/cookie";
import { requirePageOperator } from "@/server/console/session";
import { sourceNames } from "@/server/forms/source-store";
import {
  consentWords,
  invitationFilters,
  maskedPhone,
  SearchError,
  waitlistFilters,
  viewerSearchHint,
  waitlistPage,
  welcomeFilters,
  type InvitationFilter,
  type WaitlistFilter,
  type WelcomeFilter,
} from "@/server/console/waitlist";

export const metadata: Metadata = { title: "Waitlist" };

type Search = Promise<Record<"filter" | "invitation" | "welcome" | "source" | "page", string | string[] | undefined>>;

export default async function WaitlistPage({ searchParams }: { searchParams: Search }) {
  const signed = await requirePageOperator("/console/waitlist");
  const { operator, store } = signed;
  const query = await searchParams;
  const filter = (waitlistFilters as readonly string[]).includes(String(query.filter))
    ? (query.filter as WaitlistFilter)
    : "all";
  const invitation = (invitationFilters as readonly string[]).includes(String(query.invitation))
    ? (query.invitation as InvitationFilter)
    : "any";
  const welcome = (welcomeFilters as readonly string[]).includes(String(query.welcome))
    ? (query.welcome as WelcomeFilter)
    : "any";
  const sources = await sourceNames(store, "waitlist");
  const source = sources.includes(String(query.source)) ? String(query.source) : "any";
  const page = query.page === undefined ? 1 : Number(query.page);
  const search = (await cookies()).get(cookieOf("search").name)?.value ?? "";
  const owner = operator.role === "owner";
  const found = await waitlistPage(store, operator, { search, filter, invitation, welcome, source, page }).catch(
    (error: unknown) => {
      if (error instanceof SearchError) return error.message;
      throw error;
    },
  );
  const href = (to: number) =>
    `/console/waitlist?${new URLSearchParams({
      ...(filter !== "all" ? { filter } : {}),
      ...(invitation !== "any" ? { invitation } : {}),
      ...(welcome !== "any" ? { welcome } : {}),
      ...(source !== "any" ? { source } : {}),
      page: String(to),
    })}`;

  return (
    <ConsoleFrame signed={signed} current="/console/waitlist" title="Waitlist">
      <form
        method="post"
        action="/console/waitlist/search"
        className="mt-6 flex flex-wrap items-end gap-3"
        role="search"
      >
        <label className="flex flex-col">
          <span className="font-semibold">{owner ? "Number or name" : "Whole number"}</span>
          <input
            name="search"
            type="search"
            defaultValue={search}
            maxLength={10_000}
            aria-describedby={owner ? undefined : "search-hint"}
            className={fieldClass}
          />
        </label>
        <Choice label="Consent" name="filter" value={filter} values={waitlistFilters} />
        <Choice label="Welcome" name="welcome" value={welcome} values={welcomeFilters} />
        <Choice label="Invitation" name="invitation" value={invitation} values={invitationFilters} />
        <Choice label="Source" name="source" value={source} values={["any", ...sources]} />
        <button type="submit" className="rounded-lg bg-brand-700 px-4 py-2 font-semibold text-white">
          Search
        </button>
        {search ? (
          <button type="submit" name="clear" value="1" className="rounded-lg border border-stone-500 px-4 py-2">
            Clear the search
          </button>
        ) : null}
        {owner ? null : (
          <p id="search-hint" className="basis-full text-stone-700">
            {viewerSearchHint}
          </p>
        )}
      </form>
      {typeof found === "string" ? (
        <p role="alert" className="mt-6 font-semibold text-red-800">
          {found}
        </p>
      ) : (
        <>
          <p className="mt-6" role="status">
            {found.total} {found.total === 1 ? "number" : "numbers"}
            {search ? " found" : ""}, page {found.page} of {found.pages}
            {owner ? "" : ". Numbers are masked for viewers"}.
          </p>
          <WideTable label="Chefs" className="mt-3">
            <table className="w-full">
              <HeaderRow
                labels={[
                  "Number",
                  ...(owner ? ["Name"] : []),
                  "Signed up (UTC)",
                  "Source",
                  "Consent",
                  "Welcome",
                  "Invitation",
                ]}
              />
              <tbody>
                {found.rows.map((row) => (
                  <tr key={row.key} className="border-b border-stone-200">
                    <td className="py-2 pr-6 tabular-nums">
                      <Link href={`/console/chefs/${row.key}`} className="underline underline-offset-4">
                        {owner ? row.phone : maskedPhone(row.phone)}
                      </Link>
                    </td>
                    {owner ? <td className="py-2 pr-6">{row.name ?? "not kept"}</td> : null}
                    <td className="py-2 pr-6 tabular-nums">{utc(row.signedUpAt)}</td>
                    <td className="py-2 pr-6 break-all">{row.source}</td>
                    <td className="py-2 pr-6">{consentWords(row.state)}</td>
                    <td className="py-2 pr-6">{row.welcome}</td>
                    <td className="py-2">{row.invitation}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </WideTable>
          <nav aria-label="Pages" className="mt-4 flex gap-4">
            {found.page > 1 ? (
              <Link href={href(found.page - 1)} className="underline underline-offset-4">
                Newer
              </Link>
            ) : null}
            {found.page < found.pages ? (
              <Link href={href(found.page + 1)} className="underline underline-offset-4">
                Older
              </Link>
            ) : null}
          </nav>
        </>
      )}
    </ConsoleFrame>
  );
}
