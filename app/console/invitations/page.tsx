import type { Metadata } from "next";
import Link from "next/link";
import { ConsoleFrame, Outcome } from "@/components/console/console-frame";
import {
  dangerButton,
  Facts,
  fieldClass,
  HeaderRow,
  Section,
  utc,
  WideTable,
} from "@/components/console/console-table";
import { invitationStates } from "@/server/db/schema";
import { waveErrorOf } from "@/components/console/wave-errors";
import { selectionOf, wavePreview, waveRecipients, wavesWithStatus } from "@/server/console/invitations";
import { requirePageOperator } from "@/server/console/session";
import { maskedPhone } from "@/server/console/waitlist";
import { planWave } from "@/server/invitations/waves";
import { waveStateLabels } from "@/server/invitations/launch";
import { invitationsConfigured, readEnv } from "@/server/env";

export const metadata: Metadata = { title: "Invitations" };

type Search = Promise<Record<string, string | string[] | undefined>>;

const one = (value: string | string[] | undefined) => (typeof value === "string" ? value : undefined);

/** The text a wave sends and how long it takes, before Send. */
function Preview({ text, perMinute, hours, minutes }: ReturnType<typeof wavePreview>) {
  return (
    <div className="mt-4">
      <p className="font-semibold">Each number gets this text, its link ending in a code of its own:</p>
      <blockquote className="mt-1 rounded-lg border border-stone-300 bg-white p-3">{text}</blockquote>
      <p className="mt-2">
        Sent {perMinute} a minute, between {hours.from}:00 and {hours.to}:00 at each number&apos;s location: about{" "}
        {minutes} {minutes === 1 ? "minute" : "minutes"} while every number is within those hours, longer for those
        outside them.
      </p>
    </div>
  );
}

const responseColumns = ["Wave", "Queued", "Texted", "Opened", "Stopped", "Failed"];

/** The launch's waves: plan one and see who it texts and leaves out, send it by typing its name and count, cancel one. */
export default async function InvitationsPage({ searchParams }: { searchParams: Search }) {
  const signed = await requirePageOperator("/console/invitations");
  const { operator, store } = signed;
  const query = await searchParams;
  const owner = operator.role === "owner";
  const chosen = selectionOf(one(query.plan), one(query.next));
  const plan = chosen.valid ? await planWave(store, chosen.selection) : undefined;
  const waves = await wavesWithStatus(store);
  const shown = waves.find((wave) => wave.name === one(query.wave));
  const recipients = shown && (await waveRecipients(store, shown.name, !owner));
  const error = waveErrorOf(query.error);
  // A banner names a wave; what it says of it is read from the database, so a link can report nothing untrue.
  const sent = waves.find((wave) => wave.name === one(query.sent));
  const cancelled = waves.find((wave) => wave.name === one(query.cancelled) && wave.cancelledAt !== null);
  const configured = invitationsConfigured(readEnv());

  return (
    <ConsoleFrame signed={signed} current="/console/invitations" title="Invitations">
      {error ? <Outcome alert>{error}</Outcome> : null}
      {sent ? (
        <Outcome>
          Wave {sent.name} queued: {sent.size} {sent.size === 1 ? "invitation" : "invitations"}. The server sends them
          at its pace, within each number&apos;s sending hours, checking each number&apos;s consent again as it goes.
        </Outcome>
      ) : null}
      {cancelled ? (
        <Outcome>
          Wave {cancelled.name} cancelled {utc(cancelled.cancelledAt!)} UTC: {cancelled.status.counts.cancelled}{" "}
          invitations not sent; {cancelled.status.counts.queued + cancelled.status.counts.waiting} already on their way
          still go.
        </Outcome>
      ) : null}

      <Section id="plan" title="Plan a wave">
        <form method="get" action="/console/invitations" className="mt-3 flex flex-wrap items-end gap-3">
          <label className="flex flex-col">
            <span className="font-semibold">Who</span>
            <select name="plan" defaultValue={one(query.plan) ?? "next"} className={fieldClass}>
              <option value="next">The next on the waitlist</option>
              <option value="all">Everyone not yet invited</option>
            </select>
          </label>
          <label className="flex flex-col">
            <span className="font-semibold">How many (the next N)</span>
            <input
              name="next"
              type="number"
              min={1}
              max={10_000}
              defaultValue={one(query.next) ?? "20"}
              className={fieldClass}
            />
          </label>
          <button type="submit" className="rounded-lg border border-stone-500 px-4 py-2 font-semibold">
            Plan
          </button>
        </form>

        {plan ? (
          <div className="mt-6">
            <p role="status">
              {plan.chosen.length} {plan.chosen.length === 1 ? "number" : "numbers"} would be texted, in sign-up order.
            </p>
            <Facts
              rows={[
                ["Consent revoked", plan.leftOut.revoked],
                ["Already invited", plan.leftOut.invited],
                ["No consent record", plan.leftOut.noRecord],
                ["From a country the waitlist no longer takes", plan.leftOut.country],
                ["Welcome not texted", plan.leftOut.welcome],
                ["Left for a later wave", plan.later],
              ]}
            />
            {plan.notWelcomed.length ? (
              <details className="mt-3">
                <summary className="cursor-pointer">Whose welcome was not texted</summary>
                <ul className="mt-2 list-disc pl-8 tabular-nums">
                  {plan.notWelcomed.map((entry) => (
                    <li key={entry.phone}>
                      {owner ? entry.phone : maskedPhone(entry.phone)}: {entry.welcome}
                    </li>
                  ))}
                </ul>
              </details>
            ) : null}
            {plan.chosen.length ? <Preview {...wavePreview(plan.chosen.length)} /> : null}
            {plan.chosen.length ? (
              <details className="mt-3">
                <summary className="cursor-pointer">Who it texts</summary>
                <ol className="mt-2 list-decimal pl-8 tabular-nums">
                  {plan.chosen.map((entry) => (
                    <li key={entry.consentId}>
                      {owner ? entry.phone : maskedPhone(entry.phone)}, signed up {utc(entry.signedUpAt)} UTC
                    </li>
                  ))}
                </ol>
              </details>
            ) : null}
            {owner && plan.chosen.length && !configured ? (
              <p id="send-off" className="mt-6 font-semibold">
                Sending is off until invitations are configured: the workflow that texts them, where their link leads
                and the site&apos;s address are not all set (the operator&apos;s guide, under Inviting the waitlist,
                says how).
              </p>
            ) : null}
            {owner && plan.chosen.length ? (
              <form
                method="post"
                action="/console/invitations/send"
                className="mt-6 flex flex-wrap items-end gap-3"
                aria-describedby={configured ? undefined : "send-off"}
              >
                <input type="hidden" name="plan" value={chosen.query.plan} />
                {chosen.query.next ? <input type="hidden" name="next" value={chosen.query.next} /> : null}
                <label className="flex flex-col">
                  <span className="font-semibold">The wave&apos;s name</span>
                  <input
                    name="name"
                    required
                    maxLength={64}
                    pattern="[A-Za-z0-9][\w.\-]{0,63}"
                    className={fieldClass}
                  />
                </label>
                <label className="flex flex-col">
                  <span className="font-semibold">Type how many it texts ({plan.chosen.length})</span>
                  <input name="count" required inputMode="numeric" className={fieldClass} />
                </label>
                <button
                  type="submit"
                  disabled={!configured}
                  className="rounded-lg bg-brand-700 px-4 py-2 font-semibold text-white disabled:bg-stone-500"
                >
                  Send the wave
                </button>
              </form>
            ) : null}
          </div>
        ) : null}
      </Section>

      <Section id="waves" title="Waves">
        {waves.length === 0 ? (
          <p className="mt-2">None yet.</p>
        ) : (
          <WideTable label="Waves" className="mt-3">
            <table className="text-sm">
              <caption className="text-left font-semibold">
                How each wave went: opened counts a link followed from a phone&apos;s browser once, stopped a STOP after
                the text
              </caption>
              <HeaderRow labels={responseColumns} right={responseColumns.slice(1)} />
              <tbody>
                {waves.map(({ name, status: { response } }) => (
                  <tr key={name}>
                    <th scope="row" className="pr-4 text-left font-normal">
                      {name}
                    </th>
                    {[response.queued, response.texted, response.opened, response.stopped, response.failed].map(
                      (count, column) => (
                        <td key={responseColumns[column + 1]} className="pr-4 text-right tabular-nums">
                          {count}
                        </td>
                      ),
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </WideTable>
        )}
        {waves.map((wave) => (
          <article key={wave.name} className="mt-4 rounded-lg border border-stone-300 bg-white p-4">
            <h3 className="font-semibold">
              {wave.name}: {wave.size} queued {utc(wave.createdAt)} UTC
              {wave.cancelledAt ? `, cancelled ${utc(wave.cancelledAt)} UTC` : ""}
            </h3>
            <table className="mt-2 text-sm">
              <HeaderRow labels={["State", "Invitations"]} right={["Invitations"]} />
              <tbody>
                {invitationStates.map((state) => (
                  <tr key={state}>
                    <td className="pr-4">{waveStateLabels[state]}</td>
                    <td className="text-right tabular-nums">{wave.status.counts[state]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="mt-2 text-sm">
              <Link
                href={`/console/invitations?wave=${encodeURIComponent(wave.name)}#recipients`}
                className="underline"
              >
                Who it texts, and how each went
              </Link>
            </p>
            {wave.status.receiver ? (
              <p className="mt-2 text-sm font-semibold">
                The workflow is failing since {wave.status.receiver.failingSince}. {wave.status.receiver.advice}
              </p>
            ) : null}
            {owner && !wave.cancelledAt && wave.status.counts.queued + wave.status.counts.waiting > 0 ? (
              <form method="post" action="/console/invitations/cancel" className="mt-3">
                <input type="hidden" name="name" value={wave.name} />
                <button type="submit" className={dangerButton}>
                  Cancel what is not sent yet
                </button>
              </form>
            ) : null}
          </article>
        ))}
      </Section>
      {shown && recipients ? (
        <Section id="recipients" title={`Who wave ${shown.name} texts`}>
          <WideTable label={`Wave ${shown.name}'s recipients`} className="mt-3">
            <table className="text-sm">
              <HeaderRow labels={["Number", "Invitation"]} />
              <tbody>
                {recipients.map((recipient) => (
                  <tr key={recipient.chef}>
                    <td className="pr-4">
                      <Link href={`/console/chefs/${recipient.chef}`} className="underline">
                        {recipient.phone}
                      </Link>
                    </td>
                    <td>{recipient.state}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </WideTable>
        </Section>
      ) : null}
    </ConsoleFrame>
  );
}
