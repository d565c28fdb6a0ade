"use server";

import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { cookieOf } from "./cookie";
import { requireOperator } from "./session";
import { invitationFilters, SEARCH_MAX, waitlistFilters } from "./waitlist";

/**
 * The waitlist's search, posted: what was typed goes into a cookie of the
 * console's (HttpOnly, Strict, an hour), never into the URL, where a number
 * or a name would stay in the history, the logs and a Referer. Then the
 * waitlist's first page, filtered as before. One character more than a
 * search may hold is kept, so the page can say it was too long.
 */
export async function searchWaitlist(form: FormData) {
  await requireOperator("viewer");
  const { name, attributes } = cookieOf("search");
  const text = form.get("clear") ? "" : String(form.get("search") ?? "").slice(0, SEARCH_MAX + 1);
  (await cookies()).set(name, text, { ...attributes, maxAge: text ? 3600 : 0 });
  const filter = String(form.get("filter") ?? "all");
  const invitation = String(form.get("invitation") ?? "any");
  const query = new URLSearchParams({
    ...(filter !== "all" && (waitlistFilters as readonly string[]).includes(filter) ? { filter } : {}),
    ...(invitation !== "any" && (invitationFilters as readonly string[]).includes(invitation) ? { invitation } : {}),
  }).toString();
  redirect(`/console/waitlist${query ? `?${query}` : ""}`);
}
