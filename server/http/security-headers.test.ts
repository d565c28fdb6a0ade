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

describe("the production policy", () => {
  it("allows only the site's own origin, inline scripts and styles Next and sonner need, and no plugins or framing", () => {
    expect(contentSecurityPolicy({ development: false }).split("; ")).toStrictEqual([
      "default-src 'self'",
      "script-src 'self' 'unsafe-inline'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob:",
      "font-src 'self'",
      "connect-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "manifest-src 'self'",
    ]);
  });

  it("comes with HSTS, no sniffing, a strict referrer, no framing and no powerful features", () => {
    const headers = Object.fromEntries(securityHeaders({ development: false }));
    expect(headers).toStrictEqual({
      "Content-Security-Policy": contentSecurityPolicy({ development: false }),
      "Strict-Transport-Security": "max-age=31536000; includeSubDomains",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "strict-origin-when-cross-origin",
      "Permissions-Policy":
        "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=(), browsing-topics=()",
      "X-Frame-Options": "DENY",
    });
  });
});
