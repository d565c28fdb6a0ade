import type { NextConfig } from "next";
import { PHASE_DEVELOPMENT_SERVER } from "next/constants";
import { securityHeaders } from "./server/security-headers";

// The browser tests' build (E2E_TEST_BUILD=1) also picks up *.e2e.tsx pages,
// the error-boundary fixtures under app/test-error, and writes to .next-e2e:
// a production build never contains them, and never gets replaced by them.
const testBuild = process.env.E2E_TEST_BUILD === "1";

export default function nextConfig(phase: string): NextConfig {
  const headers = securityHeaders({ development: phase === PHASE_DEVELOPMENT_SERVER });
  return {
    // The header names the framework for attackers and helps nobody else.
    poweredByHeader: false,
    // The SQLite driver is native and loaded by name for the Node it runs on
    // (server/db/sqlite-driver.ts): better-sqlite3 is on Next's own list, its alias is not.
    serverExternalPackages: ["better-sqlite3", "better-sqlite3-node20"],
    reactStrictMode: true,
    pageExtensions: testBuild ? ["e2e.tsx", "tsx", "ts"] : ["tsx", "ts"],
    distDir: testBuild ? ".next-e2e" : ".next",
    // The stylesheet comes inside the HTML, not as a render-blocking request
    // that a phone's link makes the first paint wait for (docs/performance.md).
    // Next repeats it twice in the RSC payload after the markup, which the
    // first paint does not wait for.
    experimental: { inlineCss: true },
    // Static headers on every response, static files included, at no cost per
    // request: no middleware runs for them.
    async headers() {
      return [{ source: "/:path*", headers: headers.map(([key, value]) => ({ key, value })) }];
    },
  };
}
