import type { Metadata } from "next";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { ConsoleFrame } from "@/components/console/console-frame";
import { AttemptsTable, Facts, utc } from "@/components/console/console-table";
import { chefOf } from "@/server/console/chef";
import { requirePageOperator } from "@/server/console/session";
import { consentWords } from "@/server/console/waitlist";

export const metadata: Metadata = { title: "A chef's records" };

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="mt-10">
      <h2 id={id} className="text-xl font-bold">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** One number's whole record: the "did you text me?" answer in one place. An owner's page: it shows evidence. */
export default async function ChefPage({ params }: { params: Promise<{ key: string }> }) {
  const { key } = await params;
  const { operator, store, allowed } = await requirePageOperator(`/console/chefs/${key}`, "owner");
  if (!allowed)
    return (
      <ConsoleFrame operator={operator} current="/console/waitlist" title="Owners only">
        <p className="mt-4">A chef&apos;s records hold consent evidence: only an owner sees them.</p>
      </ConsoleFrame>
    );
  const chef = await chefOf(store, key);
  if (!chef) notFound();
  return (
    <ConsoleFrame operator={operator} current="/console/waitlist" title={chef.phone}>
      <p className="mt-2">Consent: {consentWords(chef.state)}</p>
      <Section id="consents" title="Consent records">
        {chef.consents.length === 0 ? <p className="mt-2">None kept.</p> : null}
        {chef.consents.map((record) => (
          <article key={record.id} className="mt-4 rounded-lg border border-stone-300 bg-white p-4">
            <h3 className="font-semibold">{utc(record.consented_at)} UTC</h3>
            <Facts
              rows={[
                ["Record", record.id],
                ["Address", record.ip ?? "not kept"],
                ["Browser", record.user_agent ?? "not kept"],
                ["Page", record.page_url ?? "not kept"],
                ["JavaScript", record.javascript ? "on" : "off"],
                ["Disclosure", record.disclosure_version],
              ]}
            />
            <blockquote className="mt-3 border-l-4 border-stone-300 pl-3 whitespace-pre-wrap">
              {record.disclosure_text}
            </blockquote>
          </article>
        ))}
      </Section>
      <Section id="changes" title="Revocations and renewals">
        {chef.revocations.length + chef.renewals.length === 0 ? <p className="mt-2">None.</p> : null}
        <ul className="mt-2 list-disc pl-6">
          {chef.revocations.map((row) => (
            <li key={row.id}>
              {utc(row.revoked_at)} UTC: revoked ({row.channel}, by {row.source})
            </li>
          ))}
          {chef.renewals.map((row) => (
            <li key={row.id}>
              {utc(row.renewed_at)} UTC: renewed ({row.channel}, by {row.source})
            </li>
          ))}
        </ul>
      </Section>
      <Section id="leads" title="Sign-ups and their deliveries">
        {chef.leads.map(({ lead, name, attempts }) => (
          <article key={lead.id} className="mt-4 rounded-lg border border-stone-300 bg-white p-4">
            <h3 className="font-semibold">
              {lead.form}, {utc(lead.created_at)} UTC: {lead.state}
            </h3>
            <Facts
              rows={[
                ["Name", name ?? "not kept (delivered, past retention)"],
                ["Webhook id", lead.id],
                ["Delivered", lead.delivered_at ? `${utc(lead.delivered_at)} UTC` : "not yet"],
              ]}
            />
            <AttemptsTable attempts={attempts} />
          </article>
        ))}
      </Section>
      <Section id="invitation" title="Launch invitation">
        {chef.invitations.length === 0 ? <p className="mt-2">Not invited.</p> : null}
        {chef.invitations.map((invitation) => (
          <Facts
            key={invitation.id}
            rows={[
              ["Wave", invitation.wave],
              ["State", invitation.state],
              ["Queued", `${utc(invitation.queued_at)} UTC`],
              ["Answered", invitation.answered_at ? `${utc(invitation.answered_at)} UTC` : "not yet"],
              ["Answer", invitation.answer ?? invitation.carrier_code ?? ""],
              ["Text", invitation.text],
            ]}
          />
        ))}
      </Section>
    </ConsoleFrame>
  );
}
