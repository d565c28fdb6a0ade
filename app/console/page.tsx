import type { Metadata } from "next";
import Link from "next/link";
import { ConsoleFrame, Outcome } from "@/components/console/console-frame";
import { HeaderRow, plainButton, Section, SpanLinks, utc } from "@/components/console/console-table";
import { SignupsChart } from "@/components/console/signups-chart";
import { lastAlerts } from "@/server/outbox/alert-store";
import { overview } from "@/server/console/overview";
import { readEnv } from "@/server/env";
import { checkHealth } from "@/server/ops/health";
import { requirePageOperator } from "@/server/console/session";
import { timeZoneOf } from "@/server/operators/operator-store";

// The layout's title template is for the pages below it, not its own segment's.
export const metadata: Metadata = { title: { absolute: "Overview | Sous console" } };

type Search = Promise<{ days?: string | string[]; done?: string | string[] }>;

const spans = [7, 30, 90];

/** A count beside the span before it, as a founder reads it: "+3" or "−2" on it, or the same. */
const change = (count: number, before: number) =>
  count === before ? "the same as" : `${count > before ? "+" : "−"}${Math.abs(count - before)} on`;

export default async function OverviewPage({ searchParams }: { searchParams: Search }) {
  const signed = await requirePageOperator("/console");
  const { store } = signed;
  const query = await searchParams;
  const asked = Number(query.days);
  const days = spans.includes(asked) ? asked : 30;
  const zone = (await timeZoneOf(store, signed.operator.id)) ?? readEnv().BUSINESS_TIME_ZONE;
  const zones = Intl.supportedValuesOf("timeZone");
  const [seen, health, alerts] = await Promise.all([
    overview(store, zone),
    checkHealth(readEnv(), { figures: true }),
    lastAlerts(store),
  ]);
  const { webhooks } = readEnv();
  const connected = (form: string) => Boolean(webhooks[form as keyof typeof webhooks]?.url);
  const receivers = [
    ...Object.entries(health.forms ?? {}).map(([form, figures]) => ({ form, ...figures, connected: connected(form) })),
    ...(health.invitations
      ? [{ form: "invitations", ...health.invitations, lastDeliveredAt: null, connected: connected("invitations") }]
      : []),
  ];
  const counts = [
    ["On the waitlist", seen.onList],
    ["Consent in force", seen.inForce],
    ["Revoked", seen.revoked],
    ["Invited", seen.invited],
    ["Texted", seen.texted],
  ] as const;
  return (
    <ConsoleFrame signed={signed} current="/console" title="Overview">
      {query.done === "unknown-zone" ? <Outcome alert>That is not a time zone this server knows.</Outcome> : null}
      <dl className="mt-6 grid grid-cols-2 gap-4 sm:grid-cols-5">
        {counts.map(([label, value]) => (
          <div key={label} className="rounded-lg border border-stone-300 bg-white p-4">
            <dt className="text-sm">{label}</dt>
            <dd className="text-2xl font-bold tabular-nums">{value}</dd>
          </div>
        ))}
      </dl>
      <Section id="signups" title="Sign-ups per day">
        <dl className="mt-3 grid grid-cols-1 gap-4 sm:grid-cols-3">
          {(
            [
              ["Today", seen.growth.today, "yesterday"],
              ["This week", seen.growth.thisWeek, "last week by this day"],
              ["Last week", seen.growth.lastWeek, "the week before"],
            ] as const
          ).map(([label, { count, before }, than]) => (
            <div key={label} className="rounded-lg border border-stone-300 bg-white p-4">
              <dt className="text-sm">{label}</dt>
              <dd className="text-2xl font-bold tabular-nums">{count}</dd>
              <dd className="text-sm">
                {change(count, before)} {than} ({before})
              </dd>
            </div>
          ))}
        </dl>
        <form method="post" action="/console/time-zone" className="mt-3 flex flex-wrap items-end gap-3">
          <label className="flex flex-col">
            <span className="text-sm font-semibold">Your time zone (days and weeks)</span>
            <select name="zone" defaultValue={zone} className="rounded-lg border border-stone-400 bg-white px-2 py-1">
              {(zones.includes(zone) ? zones : [zone, ...zones]).map((name) => (
                <option key={name}>{name}</option>
              ))}
            </select>
          </label>
          <button type="submit" className={plainButton}>
            Keep it
          </button>
        </form>
        <SpanLinks path="/console" spans={spans} days={days} />
        <SignupsChart
          days={seen.signups.slice(-days)}
          title={`Sign-ups per day in ${zone}, the last ${days} days`}
          zone={zone}
        />
        <p className="mt-3">
          <Link href={`/console/sources?days=${days}`} className="underline underline-offset-4">
            Where chefs come from
          </Link>
          : visits, sign-ups and quote requests by source.
        </p>
      </Section>
      <Section id="waiting" title="Leads waiting">
        {seen.waiting.length === 0 ? (
          <p className="mt-2">None: every lead was delivered.</p>
        ) : (
          <table className="mt-2">
            <HeaderRow labels={["Form", "State", "Leads"]} right={["Leads"]} />
            <tbody>
              {seen.waiting.map((row) => (
                <tr key={`${row.form} ${row.state}`}>
                  <td className="pr-6">{row.form}</td>
                  <td className="pr-6">{row.state}</td>
                  <td className="text-right tabular-nums">{row.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
      <Section id="receivers" title="Receivers and health">
        <p className="mt-2" role="status">
          /api/health answers {health.status === "ok" ? "200 ok" : `503: ${health.problems.join(", ")}`}.
        </p>
        <table className="mt-3 text-sm">
          <HeaderRow labels={["Receiver", "State", "Last failure", "Last delivered (UTC)"]} />
          <tbody>
            {receivers.map((receiver) => (
              <tr key={receiver.form}>
                <td className="py-1 pr-4">{receiver.form}</td>
                <td className="py-1 pr-4">
                  {!receiver.connected
                    ? "not connected"
                    : receiver.failingSince
                      ? `failing since ${utc(Date.parse(receiver.failingSince))} UTC`
                      : "working"}
                </td>
                <td className="py-1 pr-4">{receiver.lastFailure ?? ""}</td>
                <td className="py-1 pr-4">
                  {receiver.lastDeliveredAt ? utc(Date.parse(receiver.lastDeliveredAt)) : ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <h3 className="mt-6 font-semibold">The last alerts</h3>
        {alerts.length === 0 ? (
          <p className="mt-1">None sent.</p>
        ) : (
          <ul className="mt-1 list-disc pl-6">
            {alerts.map((alert) => (
              <li key={`${alert.kind} ${alert.form}`}>
                {utc(alert.sentAt)} UTC: {alert.kind}, {alert.form}
              </li>
            ))}
          </ul>
        )}
      </Section>
    </ConsoleFrame>
  );
}
