import { NextResponse, type NextRequest } from "next/server";
import { isKnownPath } from "@/server/http/known-paths";
import { maskedPath } from "@/server/http/masked-path";
import { logEvent } from "@/server/log";

/**
 * Logs the paths no route answers; the security headers come from
 * next.config.ts for every response. The matcher keeps this off the pages,
 * their assets and the metadata routes, so they are served without it.
 *
 * Next 16 calls this file convention "proxy.ts"; the design keeps the name
 * middleware.ts, which Next 16 still runs (with a deprecation notice at build).
 * See docs/security.md. Both files at once would fail the build.
 */
export function middleware(request: NextRequest) {
  const { pathname } = request.nextUrl;
  if (!isKnownPath(pathname)) logEvent("warn", { event: "not_found", path: maskedPath(pathname) });
  return NextResponse.next();
}

export const config = {
  // Node.js rather than the Edge sandbox, like the rest of the server.
  runtime: "nodejs",
  // Everything but "/", the forms' pages ("/signup") and result pages ("/sent/…"), "/terms", "/privacy"
  // (with or without a trailing slash), Next's own files and the metadata
  // routes. Next reads this matcher as written, so it cannot follow the forms'
  // definitions: a form's page left out of it still works (isKnownPath lets
  // it through unlogged), but every view and post of it runs this function,
  // which cost /signup a fifth of its throughput (docs/performance.md).
  // server/http/known-paths.test.ts keeps the lists in step.
  matcher:
    "/((?!_next/|_vercel/|signup/?$|sent/contact/?$|sent/waitlist/?$|terms/?$|privacy/?$|api/cron/redeliver$|api/consent/revoke$|api/consent/renew$|api/health$|icon\\.svg$|apple-icon$|robots\\.txt$|sitemap\\.xml$|opengraph-image$|twitter-image$).+)",
};
