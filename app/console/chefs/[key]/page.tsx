import type { Metadata } from "next";
import type { ComponentProps } from "react";
import { ConsoleFrame, NoSuch } from "@/components/console/console-frame";
import { AttemptsTable, Details, Facts, Section, utc } from "@/components/console/console-table";
import { chefOf, viewersShare } from "@/server/console/chef";
import { requirePageOperator } from "@/server/console/session";
import type { SignedIn } from "@/server/operators/operators";
import { consentWords } from "@/server/console/waitlist";
import type { ConsentState } from "@/server/consent/consent-store";
import { refusalWords } from "@/server/invitations/launch";

export const metadata: Metadata = { title: "A chef's records" };

type LeadView = {
  lead: { id: string; receiver: string; state: string; created_at: number; delivered_at: number | null };
  /** The owner's only: the name the lead's kept payload holds. */
  name?: string;
  /** How its visitor came, in words. */
  source: string;
  attempts: ComponentProps<typeof AttemptsTable>["attempts"];
};

/** Why a sign-up no longer holds its values: a STOP before its delivery, or retention after it. */
const notKept = (state: string) =>
  state === "revoked" ? "not kept (consent ended before delivery)" : "not kept (delivered, past retention)";

/** A chef's sign-ups, each with its delivery log; the name only where the record carries it (an owner's). */
function Deliveries({ leads }: { leads: readonly LeadView[] }) {
  return (
    <Section id="leads" title="Sign-ups and their deliveries">
      {leads.map((view) => (
        <article key={view.lead.id} className="mt-4 rounded-lg border border-stone-300 bg-white p-4">
          <h3 className="font-semibold">
            {view.lead.receiver}, {utc(view.lead.created_at)} UTC: {view.lead.state}
          </h3>
          <Facts
            rows={[
              ...("name" in view ? [["Name", view.name ?? notKept(view.lead.state)] as const] : []),
              ["Came from", view.source],
              [
                "Delivered",
                view.lead.delivered_at
                  ? `${utc(view.lead.delivered_at)} UTC`
                  : view.lead.state === "revoked"
                    ? "never: its consent ended first"
                    : "not yet",
              ],
            ]}
          />
          <AttemptsTable attempts={view.attempts} />
          <Details rows={[["Webhook id", view.lead.id]]} />
        </article>
      ))}
    </Section>
  );
}

type InvitationView = {
  id: string;
  wave: string;
  state: string;
  created_at: number;
  delivered_at: number | null;
  opened_at: number | null;
  /** The owner's only: the answer and the text sent. */
  answer?: string | null;
  carrier_code?: string | null;
  text?: string;
};

/** A chef's invitation; its answer and text only where the record carries them (an owner's). */
function Invitations({ invitations }: { invitations: readonly InvitationView[] }) {
  return (
    <Section id="invitation" title="Launch invitation">
      {invitations.length === 0 ? <p className="mt-2">Not invited.</p> : null}
      {invitations.map((invitation) => (
        <Facts
          key={invitation.id}
          rows={[
            ["Wave", invitation.wave],
            ["State", invitation.state],
            ["Queued", `${utc(invitation.created_at)} UTC`],
            [
              "Texted",
              invitation.state === "texted" && invitation.delivered_at ? `${utc(invitation.delivered_at)} UTC` : "no",
            ],
            ["Opened", invitation.opened_at ? `${utc(invitation.opened_at)} UTC` : "no"],
            ...(invitation.text === undefined
              ? []
              : ([
                  [
                    "Answer",
                    invitation.state === "refused" ? refusalWords(invitation.carrier_code ?? null) : invitation.state,
                  ],
                  ["Text", invitation.text],
                ] as const)),
          ]}
        />
      ))}
    </Section>
  );
}

type Change = { id: string; channel: string; source: string; message_id?: string | null };

/** A chef's revocations and renewals in the order they came. */
function changesOf<R extends Change, N extends Change>(chef: {
  revocations: readonly (R & { revoked_at: number })[];
  renewals: readonly (N & { renewed_at: number })[];
}) {
  return [
    ...chef.revocations.map((row) => ({ ...row, at: row.revoked_at, what: "revoked" })),
    ...chef.renewals.map((row) => ({ ...row, at: row.renewed_at, what: "renewed" })),
  ].sort((a, b) => a.at - b.at);
}

/**
 * One number's whole record: the "did you text me?" answer in one place. An owner sees the evidence; a viewer, where
 * things stand (viewersShare: the number masked, no disclosure, address, name, message id or text).
 */
export default async function ChefPage({ params }: { params: Promise<{ key: string }> }) {
  const { key } = await params;
  const signed = await requirePageOperator(`/console/chefs/${key}`);
  const { operator, store } = signed;
  const chef = await chefOf(store, key);
  // Met only where the record went between middleware.ts's look and this one.
  if (!chef) return <NoSuch signed={signed} of="chef" />;
  if (operator.role !== "owner") return <ViewersPage signed={signed} chef={viewersShare(chef)} />;
  return (
    <ConsoleFrame signed={signed} current="/console/waitlist" title={chef.phone}>
      <Standing chef={chef} />
      <Section id="consents" title="Consent records">
        {chef.consents.length === 0 ? <p className="mt-2">None kept.</p> : null}
        {chef.consents.map((record) => (
          <article key={record.id} className="mt-4 rounded-lg border border-stone-300 bg-white p-4">
            <h3 className="font-semibold">{utc(record.consented_at)} UTC</h3>
            <Facts
              rows={[
                ["Address", record.ip ?? "not kept"],
                ["Page", record.page_url ?? "not kept"],
                ["JavaScript", record.javascript ? "on" : "off"],
              ]}
            />
            <Details
              rows={[
                ["Record", record.id],
                ["Browser", record.user_agent ?? "not kept"],
                ["Disclosure version", record.disclosure_version],
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
          {changesOf(chef).map((row) => (
            <li key={row.id}>
              {utc(row.at)} UTC: {row.what} ({row.channel}, by {row.source})
              {row.message_id ? <Details rows={[["Message id", row.message_id]]} /> : null}
            </li>
          ))}
        </ul>
      </Section>
      <Deliveries leads={chef.leads} />
      <Invitations invitations={chef.invitations} />
    </ConsoleFrame>
  );
}

/** Where the chef stands, before the evidence; the name an owner's alone. */
function Standing({
  chef,
}: {
  chef: { name?: string; state: ConsentState; source: string; welcome: string; invitation: string };
}) {
  return (
    <Facts
      rows={[
        ...("name" in chef ? [["Name", chef.name ?? "not kept"] as const] : []),
        ["Consent", consentWords(chef.state)],
        ["Came from", chef.source],
        ["Welcome", chef.welcome],
        ["Invitation", chef.invitation],
      ]}
    />
  );
}

/** A viewer's page of the same chef: the states, no evidence. */
function ViewersPage({ signed, chef }: { signed: SignedIn; chef: ReturnType<typeof viewersShare> }) {
  const changes = changesOf(chef);
  return (
    <ConsoleFrame signed={signed} current="/console/waitlist" title={chef.phone}>
      <Standing chef={chef} />
      <p className="mt-2">
        The consent evidence ({chef.consents.length} {chef.consents.length === 1 ? "record" : "records"}: the words
        agreed to, the address, browser and page, each message id) is shown to owners only.
      </p>
      <Section id="changes" title="Revocations and renewals">
        {changes.length === 0 ? <p className="mt-2">None.</p> : null}
        <ul className="mt-2 list-disc pl-6">
          {changes.map((row) => (
            <li key={row.id}>
              {utc(row.at)} UTC: {row.what} ({row.channel}, by {row.source})
            </li>
          ))}
        </ul>
      </Section>
      <Deliveries leads={chef.leads} />
      <Invitations invitations={chef.invitations} />
    </ConsoleFrame>
  );
}
