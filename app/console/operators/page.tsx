import type { Metadata } from "next";
import { cookies } from "next/headers";
import { ConsoleFrame, Outcome } from "@/components/console/console-frame";
import {
  Choice,
  Confirm,
  dangerButton,
  fieldClass,
  HeaderRow,
  plainButton,
  Section,
  utc,
  WideTable,
} from "@/components/console/console-table";
import { cookieOf } from "@/server/console/cookie";
import { requirePageOperator } from "@/server/console/session";
import { operatorRoles } from "@/server/db/schema";
import { justDid, type ActivityAction } from "@/server/operators/activity-store";
import { listOperators } from "@/server/operators/operators";

export const metadata: Metadata = { title: "Operators" };

/** What the owner just did, told only when the activity log holds it: the address comes from there, not the URL. */
const reports = new Map<string, { action: ActivityAction; words: (subject: string) => string }>([
  ["added", { action: "operator added", words: (subject) => `Added ${subject}.` }],
  ["link", { action: "link issued", words: (subject) => `A new enrolment link for ${subject}.` }],
  ["role", { action: "role changed", words: (subject) => `Changed the role: ${subject}.` }],
  [
    "removed",
    { action: "operator removed", words: (subject) => `Removed ${subject}: their passkeys and sessions ended.` },
  ],
]);
const refusals = new Map([
  ["invalid", "That is not an email address, or not a role. Nothing was changed."],
  ["exists", "That address is an operator already. Nothing was changed."],
  ["unknown", "No such operator. Nothing was changed."],
  ["last owner", "That is the last owner: add another owner first. Nothing was changed."],
]);

/** The link a redirect just carried in the console's cookie: shown once, for the owner to send over a trusted channel. */
async function shownLink() {
  try {
    const value = (await cookies()).get(cookieOf("enrolment").name)?.value;
    const link = value
      ? (JSON.parse(decodeURIComponent(value)) as { email: string; url: string; expiresAt: number })
      : undefined;
    return link && link.expiresAt > Date.now() ? link : undefined;
  } catch {
    return undefined;
  }
}

/** Who may use the console: an owner adds one and gives them the link, changes a role, or removes one. */
export default async function OperatorsPage({
  searchParams,
}: {
  searchParams: Promise<{ done?: string; error?: string; confirm?: string }>;
}) {
  const signed = await requirePageOperator("/console/operators", "owner");
  const { allowed, operator, store } = signed;
  if (!allowed)
    return (
      <ConsoleFrame signed={signed} current="/console/operators" title="Operators">
        <p className="mt-4">Only an owner adds, changes or removes operators.</p>
      </ConsoleFrame>
    );
  const query = await searchParams;
  const report = reports.get(String(query.done));
  const did = report && (await justDid(store, { actor: operator.email, action: report.action }));
  const refused = refusals.get(String(query.error));
  const operators = await listOperators(store);
  const asked = operators.find((other) => other.id === query.confirm);
  const link = did && (query.done === "added" || query.done === "link") ? await shownLink() : undefined;
  return (
    <ConsoleFrame signed={signed} current="/console/operators" title="Operators">
      {refused ? <Outcome alert>{refused}</Outcome> : null}
      {did?.subject ? <Outcome>{report!.words(did.subject)}</Outcome> : null}
      {link ? (
        <section aria-labelledby="link" className="mt-4 rounded-lg border border-stone-400 bg-white p-4">
          <h2 id="link" className="font-bold">
            {link.email}&apos;s enrolment link
          </h2>
          <p className="mt-2">
            Good once, until {utc(link.expiresAt)} UTC: opened on their device, it registers their passkey. Send it over
            a channel you trust; it is not shown again.
          </p>
          <input
            readOnly
            aria-label={`${link.email}'s enrolment link`}
            value={link.url}
            className={`${fieldClass} mt-2 w-full font-mono text-sm`}
          />
        </section>
      ) : null}
      {asked ? (
        <Confirm
          title={`Remove ${asked.email}?`}
          action="/console/operators/act"
          fields={{ do: "remove", id: asked.id, confirm: "remove" }}
          act={`Remove ${asked.email}`}
          keep={{ href: "/console/operators", label: "Keep them" }}
        >
          Their passkeys and sessions end at once; the console no longer lets them in.
        </Confirm>
      ) : null}

      <Section id="add" title="Add an operator">
        <p className="mt-2">An owner does everything; a viewer sees counts and lists, every number masked.</p>
        <form method="post" action="/console/operators/act" className="mt-3 flex flex-wrap items-end gap-3">
          <input type="hidden" name="do" value="add" />
          <label className="flex flex-col">
            <span className="font-semibold">Email address</span>
            <input name="email" type="email" required maxLength={254} autoComplete="off" className={fieldClass} />
          </label>
          <Choice label="Role" name="role" value="viewer" values={operatorRoles} />
          <button type="submit" className="rounded-lg bg-brand-700 px-4 py-2 font-semibold text-white">
            Add
          </button>
        </form>
      </Section>

      <WideTable label="Operators" className="mt-8">
        <table className="w-full text-sm">
          <caption className="text-left text-xl font-bold">Everyone who may sign in</caption>
          <HeaderRow labels={["Operator", "Role", "Passkeys", "Added (UTC)", "Change"]} />
          <tbody>
            {operators.map((other) => (
              <tr key={other.id} className="border-b border-stone-200 align-top">
                <td className="py-2 pr-4 break-all">{other.email}</td>
                <td className="py-2 pr-4">{other.role}</td>
                <td className="py-2 pr-4 tabular-nums">{other.passkeys}</td>
                <td className="py-2 pr-4 tabular-nums">{utc(other.createdAt)}</td>
                <td className="flex flex-wrap gap-2 py-2">
                  <form method="post" action="/console/operators/act">
                    <input type="hidden" name="id" value={other.id} />
                    <input type="hidden" name="role" value={other.role === "owner" ? "viewer" : "owner"} />
                    <button type="submit" name="do" value="role" className={plainButton}>
                      Make {other.email} {other.role === "owner" ? "a viewer" : "an owner"}
                    </button>
                  </form>
                  <form method="post" action="/console/operators/act">
                    <input type="hidden" name="id" value={other.id} />
                    <button type="submit" name="do" value="link" className={plainButton}>
                      New enrolment link for {other.email}
                    </button>
                  </form>
                  <form method="post" action="/console/operators/act">
                    <input type="hidden" name="id" value={other.id} />
                    <button type="submit" name="do" value="remove" className={dangerButton}>
                      Remove {other.email}
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </WideTable>
    </ConsoleFrame>
  );
}
