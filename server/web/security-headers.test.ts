import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, securityHeaders } from "./security-headers";

describe("contentSecurityPolicy", () => {
  it("allows the analytics debug script's origin only for the development server", () => {
    // In production Vercel Analytics loads /_vercel/insights/script.js, same-origin.
    expect(contentSecurityPolicy({ development: false })).not.toContain("vercel-scripts");
    expect(contentSecurityPolicy({ development: true })).toContain("https://va.vercel-scripts.com");
  });

  it("allows a response's own inline scripts by the sources it is given, and any inline script only for the development server", () => {
    const scripts = ["'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='", "'nonce-abc'"];
    expect(contentSecurityPolicy({ development: false, scripts }).split("; ")[1]).toBe(
      `script-src 'self' ${scripts.join(" ")}`,
    );
    expect(contentSecurityPolicy({ development: false }).split("; ")[1]).toBe("script-src 'self'");
    expect(contentSecurityPolicy({ development: true }).split("; ")[1]).toBe(
      "script-src 'self' 'unsafe-inline' 'unsafe-eval' https://va.vercel-scripts.com",
    );
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
  it("allows only the site's own origin and scripts, the inline styles Next and sonner need, and no plugins or framing", () => {
    expect(contentSecurityPolicy({ development: false }).split("; ")).toStrictEqual([
      "default-src 'self'",
      "script-src 'self'",
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
