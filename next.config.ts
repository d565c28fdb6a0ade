import type { NextConfig } from "next";
import { PHASE_DEVELOPMENT_SERVER } from "next/constants";
import { EVERY_PATH } from "./server/web/every-path.mjs";
import { FORM_POST_BYTES } from "./server/web/request-bodies.mjs";
import { securityHeaders } from "./server/web/security-headers";

export default function nextConfig(phase: string): NextConfig {
  const headers = securityHeaders({ development: phase === PHASE_DEVELOPMENT_SERVER });
  return {
    // The header names the framework for attackers and helps nobody else.
    poweredByHeader: false,
    // The SQLite driver is native and loaded by name for the Node it runs on (server/db/sqlite-driver.ts):
    // better-sqlite3 is on Next's own list, its alias is not.
    serverExternalPackages: ["better-sqlite3", "better-sqlite3-node20"],
    reactStrictMode: true,
    // A form's post, however it is framed: the server in front (scripts/start.mjs) refuses a longer one before reading
    // it; this bounds what Next reads where that server is not in front (Vercel, next start).
    experimental: { serverActions: { bodySizeLimit: FORM_POST_BYTES } },
    // No stylesheet of Next's own: the site's comes once inside the HTML (docs/decisions/0003-stylesheet.md), never as
    // a render-blocking request. Static headers here cost nothing per request, static files included.
    async headers() {
      return [{ source: EVERY_PATH, headers: headers.map(([key, value]) => ({ key, value })) }];
    },
  };
}
