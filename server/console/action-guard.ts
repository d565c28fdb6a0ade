import "server-only";
import type { OperatorRole } from "@/server/db/schema";
import { BodyTooLarge, boundedText } from "@/server/web/bounded-body";
import { CONSOLE_ACTION_BYTES } from "@/server/web/request-bodies.mjs";
import { logEvent } from "@/server/log";
import { siteUrl } from "@/server/site-settings";
import { cookieOf } from "./cookie";
import { signedInWith, type SignedIn } from "./session";

/**
 * The gate of every console action and download (a route handler: a plain
 * HTML form posts to it, so it works without JavaScript and answers with a
 * real status), checked in the handler itself, first thing
 * (docs/decisions/0015-operator-roles.md):
 *
 * - a post from another site: 403, before anything is read. The session
 *   cookie is SameSite=Strict, so such a post carries none anyway; this holds
 *   even for a browser that ignores it.
 * - no session (none, expired, or its operator removed): 404, as an unknown
 *   URL answers.
 * - a viewer asking for an owner's action: 403.
 *
 * Each refusal changes nothing and is logged without who or what.
 */
export type Gate = { ok: true; signed: SignedIn } | { ok: false; answer: Response };

/**
 * Whether a post came from the console's own pages: its Origin is SITE_URL's
 * (scheme, host and port; the console has no alias), else the browser's Sec-Fetch-Site.
 */
export function fromOurPages(headers: Pick<Headers, "get">, site: URL = siteUrl()) {
  const origin = headers.get("origin");
  if (origin && origin !== "null") return origin === site.origin;
  return headers.get("sec-fetch-site") === "same-origin";
}

/** The session cookie's value in a request's Cookie header (the handler's own request, no framework state). */
export function sessionTokenOf(headers: Pick<Headers, "get">) {
  const name = cookieOf().name;
  for (const pair of (headers.get("cookie") ?? "").split(";")) {
    const at = pair.indexOf("=");
    if (at !== -1 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

const refusal = (status: 403 | 404, text: string, action: string, reason: string) => {
  logEvent("warn", { event: "console_action_refused", action, reason, status });
  return {
    ok: false as const,
    answer: new Response(text, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } }),
  };
};

export async function gate(request: Request, { action, role }: { action: string; role: OperatorRole }): Promise<Gate> {
  if (request.method === "POST" && !fromOurPages(request.headers))
    return refusal(
      403,
      "Refused: this request did not come from the console's own pages. Nothing was changed.",
      action,
      "origin",
    );
  const signed = await signedInWith(sessionTokenOf(request.headers));
  if (!signed) return refusal(404, "Not found.", action, "no session");
  if (role === "owner" && signed.operator.role !== "owner")
    return refusal(403, "Only an owner can do this. Nothing was changed.", action, "role");
  return { ok: true, signed };
}

/** A console form's fields (application/x-www-form-urlencoded, what a plain form sends); none when too long. */
export async function formFields(request: Request) {
  try {
    return new URLSearchParams(await boundedText(request, CONSOLE_ACTION_BYTES));
  } catch (error) {
    if (error instanceof BodyTooLarge) return new URLSearchParams();
    throw error;
  }
}

/** A 303 to a console page: post/redirect/get, so a reload sends nothing again. A path, never another host. */
export function seeOther(path: `/console${string}`) {
  return new Response(null, { status: 303, headers: { Location: path, "Cache-Control": "no-store" } });
}
