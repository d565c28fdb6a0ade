import "server-only";
import { parsePhoneNumberFromString } from "libphonenumber-js/min";
import { phoneOfAnySpelling } from "@/lib/forms/phone";
import type { Store } from "@/server/db/connect";
import { phonesOfLeads, signedUpPage, type ConsentState, type SignedUpFilter } from "@/server/consent/consent-store";
import { invitationStates, type InvitationState } from "@/server/db/schema";
import { invitedPhones } from "@/server/invitations/invitation-store";
import { leadIdsNamed } from "@/server/outbox/outbox-store";
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

function invitedAs(store: Store, filter: InvitationFilter): SignedUpFilter {
  if (filter === "any") return {};
  if (filter === "not invited") return { named: { phones: invitedPhones(store, invitationStates), outside: true } };
  return { named: { phones: invitedPhones(store, [filter as InvitationState]) } };
}

/** "never confirmed": its only sign-up came after a STOP, kept as evidence until a START. */
export const consentWords = (state: ConsentState) => (state === "none" ? "never confirmed" : state);
const stateOf = (filter: Exclude<WaitlistFilter, "all">): ConsentState =>
  filter === "never confirmed" ? "none" : filter;

export type WaitlistRow = { key: string; phone: string; signedUpAt: number; state: ConsentState };

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
    page = 1,
  }: { search?: string; filter?: WaitlistFilter; invitation?: InvitationFilter; page?: number },
) {
  const wanted = {
    ...(await searched(store, search, operator)),
    ...(filter === "all" ? {} : { state: stateOf(filter) }),
    ...invitedAs(store, invitation),
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
  const rows: WaitlistRow[] = found.rows;
  return { rows, total: found.total, page, pages };
}

/** Enough to answer "is that me?" and no more. */
export function maskedPhone(phone: string) {
  const code = parsePhoneNumberFromString(phone)?.countryCallingCode;
  return `${code ? `+${code} ` : ""}••• ••• ${phone.slice(-4)}`;
}
