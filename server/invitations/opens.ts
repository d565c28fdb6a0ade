import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";
import { notFound } from "next/navigation";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { siteUrl } from "@/server/site-settings";
import { isPersonViewing } from "@/server/web/visits";
import { listInvitations, markOpened } from "./invitation-store";

// The prerendered not-found page, as a path no route answers gets it; `next dev` has none and renders its own.
let notFoundPage: string | undefined;
function unknownPage() {
  try {
    notFoundPage ??= readFileSync(path.join(process.cwd(), ".next", "server", "app", "_not-found.html"), "utf8");
  } catch {
    notFound();
  }
  return new Response(notFoundPage, {
    status: 404,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  });
}

/**
 * GET and HEAD /i/CODE: 303 to INVITE_URL with `invite=CODE`, the first time a person opens it recorded (when, never
 * who). An unknown code, or one whose invitation was never sent (cancelled, skipped), is an unknown page.
 */
export async function openInvitation(request: Request, code: string) {
  const env = readEnv();
  const store = await database(env);
  const [invitation] = await listInvitations(store, { code });
  if (!invitation || invitation.state === "cancelled" || invitation.state === "skipped") return unknownPage();
  if (isPersonViewing(request)) await markOpened(store, invitation.id, Date.now());
  const target = new URL(env.invite.link ?? siteUrl().origin);
  target.searchParams.set("invite", code);
  return new Response(null, { status: 303, headers: { location: target.href, "cache-control": "no-store" } });
}
