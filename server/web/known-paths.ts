import { formPages, resultPages } from "@/lib/forms";

/**
 * The paths this site answers. Unmatched URLs get the prerendered not-found page straight from Next's cache, so no page
 * code runs for them; middleware uses this list to log them instead. A form's page comes from its definition; a unit
 * test keeps the rest in step with app/.
 */
const pagePaths = new Set(["/", "/terms", "/privacy", ...formPages, ...resultPages]);
const metadataPaths = new Set([
  "/icon.svg",
  "/apple-icon",
  "/robots.txt",
  "/sitemap.xml",
  "/opengraph-image",
  "/twitter-image",
]);
const routePaths = new Set(["/api/cron/redeliver", "/api/consent/revoke", "/api/consent/renew", "/api/health"]);
const frameworkPrefixes = ["/_next/", "/_vercel/"];
/** The console's pages (app/console): its fixed paths, and those ending in one segment of a token or a key. */
const consolePaths = new Set([
  "/console",
  "/console/sign-in",
  "/console/setup",
  "/console/waitlist",
  "/console/quotes",
  "/console/quotes/handle",
  "/console/sources",
  "/console/deliveries",
  "/console/deliveries/confirm-drop",
  "/console/deliveries/redeliver",
  "/console/deliveries/drop",
  "/console/deliveries/decide",
  "/console/activity",
  "/console/exports",
  "/console/invitations",
  "/console/invitations/send",
  "/console/invitations/cancel",
  "/console/operators",
  "/console/operators/act",
  "/console/passkeys",
  "/console/passkeys/remove",
  "/console/passkeys/rename",
  "/console/sessions/end",
  "/console/settings",
  "/console/waitlist/search",
  "/console/time-zone",
  "/console/no-such-page",
]);
const consoleKeyed = /^\/console\/(?:enrol|chefs|exports)\/[^/]+$/;
// An invitation's link (app/i/[code]): the route itself answers an unknown code as an unknown page.
const invitationLink = /^\/i\/[^/]+$/;

/** Whether a path is the console's, where middleware gives every page a nonce and the console's headers. */
export const isConsolePath = (pathname: string) => pathname === "/console" || pathname.startsWith("/console/");

/** A page a visitor reads: where a visit may begin. */
export const isPagePath = (pathname: string) => pagePaths.has(pathname);

export function isKnownPath(pathname: string) {
  // Next redirects "/signup/" to "/signup"; that is not a miss.
  if (pathname.length > 1 && pathname.endsWith("/")) pathname = pathname.slice(0, -1);
  return (
    pagePaths.has(pathname) ||
    metadataPaths.has(pathname) ||
    routePaths.has(pathname) ||
    consolePaths.has(pathname) ||
    consoleKeyed.test(pathname) ||
    invitationLink.test(pathname) ||
    frameworkPrefixes.some((prefix) => pathname.startsWith(prefix))
  );
}
