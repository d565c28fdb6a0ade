import "server-only";
import { consentForms } from "@/lib/forms";
import {
  consentRecords,
  consentStates,
  lastRevocations,
  type ConsentRecord,
  type ConsentState,
  type RenewalRecord,
  type RevocationRecord,
} from "@/server/consent/consent-store";
import type { Store } from "@/server/db/connect";
import type { LeadState } from "@/server/db/schema";
import { listInvitations, type InvitationRow } from "@/server/invitations/invitation-store";
import { whyWaiting } from "@/server/invitations/waves";
import { valuesOf, type LeadRow } from "@/server/forms/leads";
import { sourcesOf } from "@/server/forms/source-store";
import type { Touch } from "@/server/web/visits";
import { countLeads, listLeads } from "@/server/outbox/outbox-store";
import { insertActivity } from "@/server/operators/activity-store";
import type { Actor } from "@/server/operators/operators";

// The same exports from the commands and the console's downloads; each leaves an activity line, never a value.

export type Export = { columns: readonly string[]; rows: Record<string, unknown>[] };

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const isoAt = (ms: number) => new Date(ms).toISOString();

export async function recordExport(store: Store, { by, kind, rows }: { by: Actor; kind: string; rows: number }) {
  await insertActivity(store, { ...by, action: "export", subject: kind, rows });
}

const invitationColumns = [
  "id",
  "wave",
  "position",
  "phone",
  "state",
  "consent_id",
  "text",
  "queued_at",
  "claimed_at",
  "answered_at",
  "texted_at",
  "opened_at",
  "stopped_at",
  "answer",
  "carrier_code",
  "attempts",
  "reached",
  "last_failure",
  "waiting_for",
  "waiting_until",
] as const;

const exportRow = (row: InvitationRow, lastRevokedAt: number | undefined) => ({
  id: row.id,
  wave: row.wave,
  position: row.position,
  phone: row.phone,
  state: row.state,
  consent_id: row.consent_id,
  text: row.text,
  queued_at: iso(row.created_at),
  claimed_at: iso(row.claimed_at),
  answered_at: iso(row.delivered_at),
  texted_at: row.state === "texted" ? iso(row.delivered_at) : null,
  opened_at: iso(row.opened_at),
  // A STOP (or another revocation) after the text, as the console's Stopped counts it.
  stopped_at:
    row.state === "texted" && lastRevokedAt !== undefined && lastRevokedAt >= row.delivered_at!
      ? isoAt(lastRevokedAt)
      : null,
  answer: row.answer,
  carrier_code: row.carrier_code,
  attempts: row.attempts,
  reached: row.reached,
  last_failure: row.last_failure,
  waiting_for: whyWaiting(row)?.zones.join(" ") ?? null,
  waiting_until: row.state === "waiting" ? iso(row.next_attempt_at) : null,
});

/** A row each: the invitation as kept, with when it was texted, opened and followed by a STOP. */
export async function invitationRows(store: Store, filter: { wave?: string; phone?: string }) {
  const invitations = await listInvitations(store, filter);
  const revoked = await lastRevocations(
    store,
    invitations.map((row) => row.phone),
  );
  return invitations.map((row) => exportRow(row, revoked.get(row.phone)));
}

export async function invitationExport(store: Store, { wave }: { wave?: string } = {}): Promise<Export> {
  return { columns: invitationColumns, rows: await invitationRows(store, { wave }) };
}

const consentRow = (record: ConsentRecord) => ({
  record: "consent" as const,
  id: record.id,
  at: isoAt(record.consented_at),
  phone: record.phone,
  ip: record.ip,
  user_agent: record.user_agent,
  page_url: record.page_url,
  javascript: record.javascript ? "on" : "off",
  // "no": a sign-up after a revocation, kept as evidence until a START from the phone.
  puts_in_force: record.puts_in_force ? "yes" : "no",
  lead_id: record.lead_id,
  disclosure_version: record.disclosure_version,
  disclosure_text: record.disclosure_text,
});

const revocationRow = (revocation: RevocationRecord) => ({
  record: "revocation" as const,
  id: revocation.id,
  at: isoAt(revocation.revoked_at),
  phone: revocation.phone,
  channel: revocation.channel,
  source: revocation.source,
  message_id: revocation.message_id,
});

const renewalRow = (renewal: RenewalRecord) => ({
  record: "renewal" as const,
  id: renewal.id,
  at: isoAt(renewal.renewed_at),
  phone: renewal.phone,
  channel: renewal.channel,
  source: renewal.source,
  message_id: renewal.message_id,
});

const consentColumns = [
  "record",
  "id",
  "at",
  "phone",
  "ip",
  "user_agent",
  "page_url",
  "javascript",
  "puts_in_force",
  "lead_id",
  "disclosure_version",
  "disclosure_text",
  "channel",
  "source",
  "message_id",
] as const;

export type History = { consents: ConsentRecord[]; revocations: RevocationRecord[]; renewals: RenewalRecord[] };

export function timeline(history: History) {
  return [
    ...history.consents.map(consentRow),
    ...history.revocations.map(revocationRow),
    ...history.renewals.map(renewalRow),
  ].sort((a, b) => a.at.localeCompare(b.at));
}

export async function consentExport(store: Store, { since }: { since?: number } = {}): Promise<Export> {
  return { columns: consentColumns, rows: timeline(await consentRecords(store, { since })) };
}

/** A lead whose values are gone was revoked, or is past retention (null). */
export async function consentOf(store: Store, rows: readonly LeadRow[]) {
  const phoneOf = (row: LeadRow) => {
    const form = consentForms.find((candidate) => candidate.form === row.receiver);
    const phone = form ? valuesOf(row)?.[form.phoneKey] : undefined;
    return typeof phone === "string" ? phone : undefined;
  };
  const states = await consentStates(
    store,
    rows.map(phoneOf).filter((phone): phone is string => phone !== undefined),
  );
  return (row: LeadRow): ConsentState | null | undefined => {
    if (!consentForms.some((form) => form.form === row.receiver)) return undefined;
    const phone = phoneOf(row);
    if (phone) return states.get(phone) ?? "none";
    return row.state === "revoked" ? "revoked" : null;
  };
}

const sourceColumns = ["source", "medium", "campaign", "referrer", "landing_page"] as const;

/** A lead from before sources were kept reads `unknown`. */
const sourceCells = (touch: Touch | undefined) =>
  Object.fromEntries(
    sourceColumns.map((column) => [column, touch ? touch[column] : column === "source" ? "unknown" : null]),
  );

/** What an export of leads leaves out: values a STOP before delivery never let it keep, values past retention. */
export type LeftOut = { stopped: number; retention: number; notInForce?: number };

export function leftOutWords({ stopped, retention, notInForce = 0 }: LeftOut) {
  const parts = [
    ...(stopped ? [`${stopped} whose number texted STOP before delivery (its values were never kept)`] : []),
    ...(retention ? [`${retention} past the retention period (values removed after delivery)`] : []),
    ...(notInForce ? [`${notInForce} whose consent is not in force`] : []),
  ];
  return parts.length ? `Left out: ${parts.join("; ")}.` : "Nothing left out.";
}

/** The console's count of what a form's export leaves out, without reading the leads. */
export async function leftOutOf(store: Store, form: string): Promise<LeftOut> {
  const [valueless, stopped] = await Promise.all([
    countLeads(store, { form, withValues: false }),
    countLeads(store, { form, withValues: false, states: ["revoked"] }),
  ]);
  return { stopped, retention: valueless - stopped };
}

/** A form that texts gives each number once, with its latest lead. */
export async function leadExport(
  store: Store,
  { form, states, consented = false }: { form: string; states: LeadState[]; consented?: boolean },
) {
  const consentForm = consentForms.find((candidate) => candidate.form === form);
  const asksConsent = consentForm !== undefined;
  if (consented && !asksConsent)
    throw new Error(
      `--consented is for a form that asks consent to text (${consentForms.map((candidate) => candidate.form).join(", ")})`,
    );
  const listed = await listLeads(store, { states, form });
  const consent = await consentOf(store, listed);
  const valueless = listed.filter((row) => valuesOf(row) === undefined);
  const stopped = valueless.filter((row) => row.state === "revoked").length;
  const kept = listed
    .map((row) => ({ row, values: valuesOf(row) }))
    .filter(({ values }) => values !== undefined)
    .map(({ row, values }) => ({
      id: row.id,
      state: row.state,
      createdAt: iso(row.created_at),
      ...(asksConsent ? { consent: consent(row) } : {}),
      payload: values!,
    }));
  const rows = kept.filter((row) => !consented || row.consent === "in force");
  const leftOut: LeftOut = {
    stopped,
    retention: valueless.length - stopped,
    ...(consented && consentForm
      ? {
          notInForce: new Set(kept.filter((row) => !rows.includes(row)).map((row) => row.payload[consentForm.phoneKey]))
            .size,
        }
      : {}),
  };
  const latest = consentForm
    ? [...new Map(rows.map((row) => [String(row.payload[consentForm.phoneKey]), row])).values()]
    : rows;
  const fields = [...new Set(latest.flatMap((row) => Object.keys(row.payload)))];
  const sources = await sourcesOf(
    store,
    latest.map((row) => row.id),
  );
  const records = latest.map((row) => ({ ...row, ...sourceCells(sources.get(row.id)) }));
  return {
    records,
    leftOut,
    columns: ["id", "state", "createdAt", ...(asksConsent ? ["consent"] : []), ...fields, ...sourceColumns],
    rows: records.map(({ payload, ...row }) => ({ ...payload, ...row })),
  };
}
