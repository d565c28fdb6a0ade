import { NextResponse, type NextFetchEvent, type NextRequest } from "next/server";
import { isConsolePath, isKnownPath, isPagePath } from "@/server/web/known-paths";
import { maskedPath } from "@/server/web/masked-path";
import { hashesForAnyPath, noncePolicies } from "@/server/web/page-policy";
import { consoleHeaders } from "@/server/web/security-headers";
import { cookieOf } from "@/server/console/cookie";
import { logEvent } from "@/server/log";
import { siteHosts } from "@/server/site-settings";
import { firstTouch, isFromOutside, isPersonViewing, touchOf, TOUCH_COOKIE, TOUCH_DAYS } from "@/server/web/visits";

/**
 * A person's view of a public page from outside the site counts as a visit, by its own source; their first view also
 * keeps where they came from, for the lead they may leave (docs/decisions/0018-first-touch.md).
 */
function noteVisit(request: NextRequest, response: NextResponse, event?: NextFetchEvent) {
  const { nextUrl } = request;
  if (!isPagePath(nextUrl.pathname) || !isPersonViewing(request)) return response;
  let own = [nextUrl.host.toLowerCase()];
  try {
    own = [...own, ...siteHosts()];
  } catch {
    // A setting the pages refuse too: the request's own host still tells this site from others.
  }
  const referer = request.headers.get("referer");
  const touch = firstTouch(nextUrl, referer, own);
  // Imported when first needed: the database's modules stay out of the middleware a server loads at start.
  if (isFromOutside(referer, own))
    event?.waitUntil(
      import("@/server/forms/source-store").then(({ recordVisit }) => recordVisit(nextUrl.pathname, touchOf(touch))),
    );
  if (!request.cookies.has(TOUCH_COOKIE))
    response.cookies.set(TOUCH_COOKIE, touch.toString(), {
      httpOnly: true,
      sameSite: "lax",
      secure: nextUrl.protocol === "https:",
      path: "/",
      maxAge: TOUCH_DAYS * 86_400,
    });
  return response;
}

/**
 * An unknown console address, or a chef no record has, is answered by the console's own 404 page: Next's notFound()
 * renders nothing without JavaScript (vercel/next.js#62228). A chef is looked up only for a browser with a session.
 */
async function missingFromConsole(request: NextRequest, known: boolean) {
  if (request.method !== "GET") return undefined;
  if (!known) return "page";
  const key = /^\/console\/chefs\/([^/]+)$/.exec(request.nextUrl.pathname)?.[1];
  if (!key || !request.cookies.has(cookieOf().name)) return undefined;
  try {
    const { isChef } = await import("@/server/console/chef");
    return (await isChef(decodeURIComponent(key))) ? undefined : "chef";
  } catch {
    return undefined; // a setting the page refuses too, or a key no one could have written: the page answers
  }
}

// Logs the paths no route answers, and gives a script nonce to the pages rendered per request (a form posted without
// JavaScript, the console, an error at a path no route answers): the matcher keeps it off the pages viewed and their
// assets (docs/security.md). Next 16 calls this file proxy.ts; it still runs middleware.ts, the name the design keeps.
export function middleware(request: NextRequest, event?: NextFetchEvent) {
  const { pathname } = request.nextUrl;
  const known = isKnownPath(pathname);
  if (!known) logEvent("warn", { event: "not_found", path: maskedPath(pathname) });
  // The console's pages are rendered per request, and the passkey ceremony is a script: each gets a nonce. A view of
  // one of the site's other pages is sent whole, its scripts allowed by the hashes the build wrote: nothing to add.
  const consolePage = isConsolePath(pathname);
  if (request.method !== "POST" && known && !consolePage) return noteVisit(request, NextResponse.next(), event);
  const { request: requestPolicy, response: policy } = noncePolicies(undefined, known ? [] : hashesForAnyPath());
  const headers = new Headers(request.headers);
  headers.set("Content-Security-Policy", requestPolicy);
  if (!consolePage) {
    const response = NextResponse.next({ request: { headers } });
    response.headers.set("Content-Security-Policy", policy);
    return response;
  }
  // Only headers and the 404: who may see a console page is checked by the page itself (docs/decisions/0015-operator-roles.md).
  return missingFromConsole(request, known).then((missing) => {
    const response = missing
      ? NextResponse.rewrite(new URL(`/console/no-such-page?of=${missing}`, request.url), {
          status: 404,
          request: { headers },
        })
      : NextResponse.next({ request: { headers } });
    for (const [name, value] of [["Content-Security-Policy", policy] as const, ...consoleHeaders])
      response.headers.set(name, value);
    return response;
  });
}

export const config = {
  // Node.js rather than the Edge sandbox, like the rest of the server.
  runtime: "nodejs",
  // Every path but the public pages, Next's files and the metadata routes: each view through this function cost /signup
  // a fifth of its throughput (docs/performance.md). Next reads the matcher as written, so it cannot follow the forms'
  // definitions; server/web/known-paths.test.ts keeps the lists in step.
  matcher: [
    "/((?!_next/|_vercel/|signup/?$|sent/contact/?$|sent/waitlist/?$|terms/?$|privacy/?$|api/cron/redeliver$|api/consent/revoke$|api/consent/renew$|api/health$|i/[^/]+$|icon\\.svg$|apple-icon$|robots\\.txt$|sitemap\\.xml$|opengraph-image$|twitter-image$).+)",
    // And a body sent to a page (a GET has no Content-Type): a form's post, for its nonce. Not the API routes, whose
    // answers are JSON, nor Next's files.
    { source: "/((?!_next/|_vercel/|api/).*)", has: [{ type: "header", key: "content-type" }] },
    // And a browser's view of a public page that may begin a visit (noteVisit): its first, with no touch cookie yet, or
    // one from outside the site, by Sec-Fetch-Site or, from a browser that sends none, by its referrer.
    {
      source: "/:page(signup|terms|privacy)?",
      has: [{ type: "header", key: "user-agent", value: "Mozilla/.*" }],
      missing: [{ type: "cookie", key: "sous_touch" }],
    },
    {
      source: "/:page(signup|terms|privacy)?",
      has: [
        { type: "header", key: "user-agent", value: "Mozilla/.*" },
        { type: "header", key: "sec-fetch-site", value: "(cross-site|same-site|none)" },
      ],
    },
    {
      source: "/:page(signup|terms|privacy)?",
      has: [{ type: "header", key: "user-agent", value: "Mozilla/.*" }],
      missing: [{ type: "header", key: "sec-fetch-site" }],
    },
  ],
};
