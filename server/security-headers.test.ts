import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, securityHeaders } from "./security-headers";

describe("contentSecurityPolicy", () => {
  it("allows the analytics script's origin only when analytics is on", () => {
    expect(contentSecurityPolicy({ analytics: false, development: false })).not.toContain("vercel-scripts");
    expect(contentSecurityPolicy({ analytics: true, development: false })).toContain(
      "script-src 'self' 'unsafe-inline' https://va.vercel-scripts.com",
    );
  });

  it("allows eval only for the development server", () => {
    expect(contentSecurityPolicy({ analytics: false, development: false })).not.toContain("unsafe-eval");
    expect(contentSecurityPolicy({ analytics: false, development: true })).toContain("'unsafe-eval'");
  });
});

describe("securityHeaders", () => {
  it("names every header once", () => {
    const names = securityHeaders({ analytics: false, development: false }).map(([name]) => name.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
  });
});
