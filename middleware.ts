import { NextResponse, type NextRequest } from "next/server";
import { analyticsEnabled } from "@/server/env";
import { isKnownPath } from "@/server/known-paths";
import { logEvent } from "@/server/log";
import { securityHeaders } from "@/server/security-headers";

/**
 * Runs before every route, static files included.
 *
 * Next 16 calls this file convention "proxy.ts"; the design keeps the name
 * middleware.ts, which Next 16 still runs (with a deprecation notice at build).
 * See the README. Both files at once would fail the build.
 */
export function middleware(request: NextRequest) {
  const { pathname } = request.nextUrl;
  if (!isKnownPath(pathname)) logEvent("warn", { event: "not_found", path: pathname.slice(0, 200) });

  const response = NextResponse.next();
  const headers = securityHeaders({
    analytics: analyticsEnabled(),
    development: process.env.NODE_ENV === "development",
  });
  for (const [name, value] of headers) response.headers.set(name, value);
  return response;
}

export const config = {
  // Node.js rather than the Edge sandbox: env is read per request like the rest of the server.
  runtime: "nodejs",
  matcher: "/:path*",
};
