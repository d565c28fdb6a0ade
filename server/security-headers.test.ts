import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, securityHeaders } from "./security-headers";

describe("contentSecurityPolicy", () => {
  it("allows the analytics debug script's origin only for the development server", () => {
    // In production Vercel Analytics loads /_vercel/insights/script.js, same-origin.
    expect(contentSecurityPolicy({ development: false })).not.toContain("vercel-scripts");
    expect(contentSecurityPolicy({ development: true })).toContain("https://va.vercel-scripts.com");
  });

  it("allows eval only for the development server", () => {
    expect(contentSecurityPolicy({ development: false })).not.toContain("unsafe-eval");
    expect(contentSecurityPolicy({ development: true })).toContain("'unsafe-eval'");
  });
});

describe("securityHeaders", () => {
  it("names every header once", () => {
    const names = securityHeaders({ development: false }).map(([name]) => name.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
  });
});
