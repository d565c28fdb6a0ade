import { formPages, resultPages } from "@/lib/forms";

/**
 * The paths this site answers. Unmatched URLs get the prerendered not-found page
 * straight from Next's cache, so no page code runs for them; middleware uses
 * this list to log them instead. A form's page comes from its definition; a
 * unit test keeps the rest in step with app/.
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

export function isKnownPath(pathname: string) {
  // Next redirects "/signup/" to "/signup"; that is not a miss.
  if (pathname.length > 1 && pathname.endsWith("/")) pathname = pathname.slice(0, -1);
  return (
    pagePaths.has(pathname) ||
    metadataPaths.has(pathname) ||
    routePaths.has(pathname) ||
    frameworkPrefixes.some((prefix) => pathname.startsWith(prefix))
  );
}
