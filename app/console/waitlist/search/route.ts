import { NextResponse } from "next/server";
import { formFields, gate } from "@/server/console/action-guard";
import { cookieOf } from "@/server/console/cookie";
import { sourceNames } from "@/server/forms/source-store";
import { invitationFilters, SEARCH_MAX, waitlistFilters, welcomeFilters } from "@/server/console/waitlist";

/**
 * The waitlist's search, posted by a plain form: what was typed goes into a cookie of the console's (HttpOnly, Strict,
 * an hour), never into the URL; then the waitlist's first page, filtered as before, loaded whole, so no earlier answer
 * can stand in for it. One character more than a search may hold is kept, so the page can say it was too long.
 */
export async function POST(request: Request) {
  const checked = await gate(request, { action: "search", role: "viewer" });
  if (!checked.ok) return checked.answer;
  const form = await formFields(request);
  const text = form.get("clear") ? "" : (form.get("search") ?? "").slice(0, SEARCH_MAX + 1);
  const chosen = (name: string, values: readonly string[]) => {
    const value = form.get(name) ?? values[0]!;
    return value !== values[0] && values.includes(value) ? { [name]: value } : {};
  };
  const query = new URLSearchParams({
    ...chosen("filter", waitlistFilters),
    ...chosen("invitation", invitationFilters),
    ...chosen("welcome", welcomeFilters),
    ...chosen("source", ["any", ...(await sourceNames(checked.signed.store, "waitlist"))]),
  }).toString();
  const answer = new NextResponse(null, {
    status: 303,
    headers: { Location: `/console/waitlist${query ? `?${query}` : ""}`, "Cache-Control": "no-store" },
  });
  const { name, attributes } = cookieOf("search");
  answer.cookies.set(name, text, { ...attributes, maxAge: text ? 3600 : 0 });
  return answer;
}
