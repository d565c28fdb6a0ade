import { expect, test } from "./fixtures";

function directives(policy: string) {
  return new Map(
    policy
      .split(";")
      .map((directive) => directive.trim().split(/\s+/))
      .map(([name = "", ...values]) => [name, values] as const),
  );
}

for (const { path, status } of [
  { path: "/", status: 200 },
  { path: "/signup", status: 200 },
  { path: "/no-such-page", status: 404 },
  { path: "/icon.svg", status: 200 },
]) {
  test(`${path} carries the security headers`, async ({ request }) => {
    const response = await request.get(path);
    expect(response.status()).toBe(status);
    const headers = response.headers();

    const csp = directives(headers["content-security-policy"] ?? "");
    expect(csp.get("default-src")).toEqual(["'self'"]);
    expect(csp.get("object-src")).toEqual(["'none'"]);
    expect(csp.get("base-uri")).toEqual(["'none'"]);
    expect(csp.get("form-action")).toEqual(["'self'"]);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    const scriptSrc = csp.get("script-src") ?? [];
    expect(scriptSrc).toContain("'self'");
    expect(scriptSrc).not.toContain("'unsafe-eval'");
    // No inline script but those the page's own hashes allow (content-security-policy.server.spec.ts).
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    expect(scriptSrc.some((source) => source.includes("*"))).toBe(false);
    // Analytics is off in this run, so no third-party origin is allowed.
    expect(scriptSrc.filter((source) => source.startsWith("http"))).toEqual([]);

    expect(headers["strict-transport-security"]).toMatch(/^max-age=31536000\b/);
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(headers["permissions-policy"]).toContain("camera=()");
    expect(headers["permissions-policy"]).toContain("microphone=()");
    expect(headers["permissions-policy"]).toContain("geolocation=()");
    expect(headers).not.toHaveProperty("x-powered-by");
  });
}

test("the pages stay prerendered and cacheable under the policy", async ({ request }) => {
  for (const path of ["/", "/signup", "/terms", "/privacy"]) {
    const response = await request.get(path);
    expect(response.headers()["x-nextjs-cache"], path).toMatch(/HIT|STALE/);
    // Built once, never regenerated: a cache may keep it until the next deploy.
    expect(response.headers()["cache-control"], path).toContain("s-maxage=31536000");
  }
});
