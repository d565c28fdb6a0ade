import "server-only";
import { parsePhoneNumberFromString } from "libphonenumber-js/min";
import { phoneOfAnySpelling } from "@/lib/forms/phone";
import type { Store } from "@/server/db/connect";
import {
  leadIdsOfNumbers,
  phonesBySignUp,
  phonesOfLeads,
  signedUpPage,
  type ConsentState,
  type SignedUpFilter,
} from "@/server/consent/consent-store";
import { invitationStates } from "@/server/db/schema";
import { invitedPhones, listInvitations, type InvitationRow } from "@/server/invitations/invitation-store";
import { refusalWords } from "@/server/invitations/launch";
import { valuesOf } from "@/server/forms/leads";
import { leadIdsFrom, sourcesOf } from "@/server/forms/source-store";
import {
  leadIdsNamed,
  listLeads,
  welcomedIds,
  welcomeOf,
  welcomeStates,
  type LeadRow,
  type WelcomeState,
} from "@/server/outbox/outbox-store";
import type { Operator } from "@/server/operators/operator-store";
import { consumeConsoleAttempt } from "@/server/forms/limits";
import { readEnv } from "@/server/env";
import { waitlistPhonePolicy } from "@/server/site-settings";

// A viewer searches by a whole number only: a part of one or a name would unmask what the page masks. A row's key
// is its first sign-up's record id, so no number goes into a URL.

export const PAGE_SIZE = 50;
export const SEARCH_MAX = 100;
export const waitlistFilters = ["all", "in force", "revoked", "never confirmed"] as const;
export type WaitlistFilter = (typeof waitlistFilters)[number];

export const invitationFilters = ["any", "not invited", ...invitationStates] as const;
export type InvitationFilter = (typeof invitationFilters)[number];

export const welcomeFilters = ["any", ...welcomeStates] as const;
export type WelcomeFilter = (typeof welcomeFilters)[number];

/** "any", or the name of a source the waitlist's leads came from. */
type Chosen = { invitation: InvitationFilter; welcome: WelcomeFilter; source: string };

function chosenBy(store: Store, { invitation, welcome, source }: Chosen): SignedUpFilter {
  const named: NonNullable<SignedUpFilter["named"]> = [];
  if (invitation === "not invited") named.push({ phones: invitedPhones(store, invitationStates), outside: true });
  else if (invitation !== "any") named.push({ phones: invitedPhones(store, [invitation]) });
  if (welcome !== "any") named.push({ phones: phonesBySignUp(store, welcomedIds(store, welcome), "latest") });
  if (source !== "any") named.push({ phones: phonesBySignUp(store, leadIdsFrom(store, "waitlist", source), "first") });
  return { named };
}

/** "never confirmed": its only sign-up came after a STOP, kept as evidence until a START. */
export const consentWords = (state: ConsentState) => (state === "none" ? "never confirmed" : state);
const stateOf = (filter: Exclude<WaitlistFilter, "all">): ConsentState =>
  filter === "never confirmed" ? "none" : filter;

export type WaitlistRow = {
  key: string;
  phone: string;
  signedUpAt: number;
  state: ConsentState;
  /** Kept until retention or a STOP empties the lead. */
  name: string | undefined;
  source: string;
  welcome: string;
  invitation: string;
};

export class SearchError extends Error {}

export const viewerSearchHint = "Viewers search by a whole number, in any spelling.";

/** Each search counts against the operator. */
async function searched(store: Store, text: string, operator: Pick<Operator, "id" | "role">): Promise<SignedUpFilter> {
  const typed = text.trim();
  if (!typed) return {};
  if (typed.length > SEARCH_MAX) throw new SearchError(`Search for at most ${SEARCH_MAX} characters.`);
  const counted = await consumeConsoleAttempt("search", operator.id, readEnv());
  if (!counted.ok)
    throw new SearchError(`Too many searches. Try again in ${Math.ceil(counted.retryAfterSeconds / 60)} minutes.`);
  const whole = phoneOfAnySpelling(typed, waitlistPhonePolicy().defaultCountry);
  if (whole) return { phone: whole };
  if (operator.role !== "owner") throw new SearchError(viewerSearchHint);
  const digits = typed.replace(/\D/g, "");
  // Digits and what people type between them: a part of a number.
  if (/^[\d\s()+.\-/]+$/.test(typed)) {
    if (digits.length < 3) throw new SearchError("Type at least 3 digits of a number, or a name.");
    return { digits };
  }
  return {
    phones: await phonesOfLeads(store, await leadIdsNamed(store, { form: "waitlist", text: typed, limit: 450 })),
  };
}

export async function waitlistPage(
  store: Store,
  operator: Pick<Operator, "id" | "role">,
  {
    search = "",
    filter = "all",
    invitation = "any",
    welcome = "any",
    source = "any",
    page = 1,
  }: { search?: string; filter?: WaitlistFilter; page?: number } & Partial<Chosen>,
) {
  const wanted = {
    ...(await searched(store, search, operator)),
    ...(filter === "all" ? {} : { state: stateOf(filter) }),
    ...chosenBy(store, { invitation, welcome, source }),
  };
  // A page past the last safe integer is no page either: the database would refuse its offset.
  const shown = Number.isSafeInteger(page) && page >= 1 && page <= Number.MAX_SAFE_INTEGER / PAGE_SIZE;
  const found = await signedUpPage(store, {
    filter: wanted,
    offset: shown ? (page - 1) * PAGE_SIZE : 0,
    limit: shown ? PAGE_SIZE : 1,
  });
  const pages = Math.max(1, Math.ceil(found.total / PAGE_SIZE));
  if (!shown || page > pages) throw new SearchError(`There is no page ${page}: pages 1 to ${pages}.`);
  const people = await peopleOf(
    store,
    found.rows.map((row) => row.phone),
  );
  const owner = operator.role === "owner";
  const rows: WaitlistRow[] = found.rows.map((row) => {
    const person = people(row.phone);
    return { ...row, ...person, name: owner ? person.name : undefined };
  });
  return { rows, total: found.total, page, pages };
}

/** "texted, opened", "refused: not a mobile number", "not invited". */
export function invitationWords(invitation: Pick<InvitationRow, "state" | "carrier_code" | "opened_at"> | undefined) {
  if (!invitation) return "not invited";
  if (invitation.state === "refused") return `refused: ${refusalWords(invitation.carrier_code)}`;
  return invitation.opened_at === null ? invitation.state : `${invitation.state}, opened`;
}

/** "texted", "refused: not a mobile number", "waiting: no workflow connected". */
export function welcomeWords(lead: Pick<LeadRow, "state" | "attempts" | "answer" | "carrier_code"> | undefined) {
  const welcome: WelcomeState = welcomeOf(lead);
  if (welcome === "refused") return `refused: ${refusalWords(lead!.carrier_code)}`;
  if (welcome === "not sent") return "not sent: consent ended first";
  if (welcome !== "waiting" || !lead) return welcome;
  if (lead.state === "held") return "waiting: no workflow connected";
  if (lead.state === "awaiting_start") return "waiting for a START";
  return lead.state === "awaiting_release" ? "waiting for an owner's release" : "waiting";
}

/** A page's people: the name their latest sign-up keeps, where their first came from, their welcome and invitation. */
async function peopleOf(store: Store, phones: readonly string[]) {
  const leadIds = await leadIdsOfNumbers(store, phones);
  const ids = [...leadIds.values()].flat();
  const [leads, sources, invitations] = await Promise.all([
    listLeads(store, { ids }),
    sourcesOf(store, ids),
    listInvitations(store, { phones }),
  ]);
  const byId = new Map(leads.map((lead) => [lead.id, lead]));
  return (phone: string) => {
    const own = (leadIds.get(phone) ?? []).flatMap((id) => byId.get(id) ?? []);
    const name = own.map((lead) => valuesOf(lead)?.name).findLast((value) => typeof value === "string");
    const latest = own
      .filter((lead) => lead.receiver === "waitlist")
      .sort((a, b) => a.created_at - b.created_at)
      .at(-1);
    const source = own.map((lead) => sources.get(lead.id)).find(Boolean);
    return {
      name: name as string | undefined,
      source: source ? [source.source, ...(source.campaign ? [source.campaign] : [])].join(", ") : "unknown",
      welcome: welcomeWords(latest),
      invitation: invitationWords(invitations.find((invitation) => invitation.phone === phone)),
    };
  };
}

/** Enough to answer "is that me?" and no more. */
export function maskedPhone(phone: string) {
  const code = parsePhoneNumberFromString(phone)?.countryCallingCode;
  return `${code ? `+${code} ` : ""}••• ••• ${phone.slice(-4)}`;
}
