import "server-only";
import type { OperatorRole } from "@/server/db/schema";
import { BodyTooLarge, boundedText } from "@/server/web/bounded-body";
import { CONSOLE_ACTION_BYTES } from "@/server/web/request-bodies.mjs";
import { logEvent } from "@/server/log";
import { siteUrl } from "@/server/site-settings";
import { cookieOf } from "./cookie";
import type { SignedIn } from "@/server/operators/operators";
import { consoleStore, signedInWith } from "./session";

/**
 * Every console action and download is a route handler a plain form posts to (decision 0015): another site's post is
 * 403 before anything is read, no session 404, a viewer at an owner's action 403; each logged without who or what.
 */
export type Gate = { ok: true; signed: SignedIn } | { ok: false; answer: Response };

/** SITE_URL's exact origin (the console has no alias), else the browser's Sec-Fetch-Site. */
export function fromOurPages(headers: Pick<Headers, "get">, site: URL = siteUrl()) {
  const origin = headers.get("origin");
  if (origin && origin !== "null") return origin === site.origin;
  return headers.get("sec-fetch-site") === "same-origin";
}

export function sessionTokenOf(headers: Pick<Headers, "get">) {
  const name = cookieOf().name;
  for (const pair of (headers.get("cookie") ?? "").split(";")) {
    const at = pair.indexOf("=");
    if (at !== -1 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** A refusal is a page with a way back, not bare text. Its words are the console's own: nothing to escape. */
const refusalPage = (text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Refused | Sous console</title></head><body><main><h1>Refused</h1><p>${text}</p><p><a href="/console">Back to the console</a></p></main></body></html>`;

const refusal = (status: 403 | 404, text: string, action: string, reason: string) => {
  logEvent("warn", { event: "console_action_refused", action, reason, status });
  return {
    ok: false as const,
    answer: new Response(refusalPage(text), { status, headers: { "Content-Type": "text/html; charset=utf-8" } }),
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
  const signed = await signedInWith(await consoleStore(), sessionTokenOf(request.headers));
  if (!signed) return refusal(404, "Not found.", action, "no session");
  if (role === "owner" && signed.operator.role !== "owner")
    return refusal(403, "Only an owner can do this. Nothing was changed.", action, "role");
  return { ok: true, signed };
}

/** None when too long. */
export async function formFields(request: Request) {
  try {
    return new URLSearchParams(await boundedText(request, CONSOLE_ACTION_BYTES));
  } catch (error) {
    if (error instanceof BodyTooLarge) return new URLSearchParams();
    throw error;
  }
}

/** Post/redirect/get: a reload sends nothing again. A path, never another host. */
export function seeOther(path: `/console${string}`) {
  return new Response(null, { status: 303, headers: { Location: path, "Cache-Control": "no-store" } });
}
