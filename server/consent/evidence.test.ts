import { beforeEach, describe, expect, it, vi } from "vitest";
import { consentFieldNames } from "@/lib/forms/consent";
import { formData } from "@/tests/support/form-data";
import { disclosureOf } from "./disclosure";
import { consentEvidence } from "./evidence";

const spec = { text: "I agree to texts. Reply STOP to cancel.", page: "/signup" };
const version = disclosureOf(spec.text).version;
const posted = (fields: Record<string, string> = {}) => formData({ name: "Ada", ...fields });

describe("consentEvidence", () => {
  beforeEach(() => vi.stubEnv("SITE_URL", "https://sous.example"));

  it("takes the number, the counted address, the browser, the Referer, the posted version and the script flag", () => {
    const evidence = consentEvidence(spec, {
      phone: "+15551234567",
      ip: "203.0.113.5",
      formData: posted({ [consentFieldNames.disclosure]: version, [consentFieldNames.javascript]: "1" }),
      headers: new Headers({
        host: "sous.example",
        "user-agent": "Mozilla/5.0",
        referer: "https://sous.example/signup?utm_source=ig#form",
      }),
    });
    expect(evidence).toStrictEqual({
      phone: "+15551234567",
      ip: "203.0.113.5",
      userAgent: "Mozilla/5.0",
      pageUrl: "https://sous.example/signup?utm_source=ig",
      javascript: true,
      disclosure: { version, text: spec.text },
      shownVersion: version,
    });
  });

  it("falls back to the form's page on the browser's Origin, then to nothing, and never keeps a non-web URL", () => {
    const page = (headers: Record<string, string>) =>
      consentEvidence(spec, {
        phone: "+15551234567",
        ip: "203.0.113.5",
        formData: posted(),
        headers: new Headers({ host: "sous.example", ...headers }),
      }).pageUrl;
    expect(page({ origin: "https://sous.example" })).toBe("https://sous.example/signup");
    vi.stubEnv("SITE_ALIASES", "127.0.0.1:3000");
    expect(page({ host: "127.0.0.1:3000", referer: "javascript:alert(1)", origin: "http://127.0.0.1:3000" })).toBe(
      "http://127.0.0.1:3000/signup",
    );
    expect(page({ referer: "not a url" })).toBeNull();
    // The site's host under another scheme is no web page of it.
    expect(page({ referer: "ftp://sous.example/signup" })).toBeNull();
    expect(page({ origin: "null" })).toBeNull();
    expect(page({})).toBeNull();
    expect(page({ referer: `https://sous.example/signup?q=${"x".repeat(3_000)}` })).toHaveLength(2_048);
  });

  it("keeps a page only on SITE_URL's host and SITE_ALIASES, never a Referer from elsewhere nor the request's Host", () => {
    const page = (headers: Record<string, string>) =>
      consentEvidence(spec, {
        phone: "+15551234567",
        ip: "203.0.113.5",
        formData: posted(),
        headers: new Headers(headers),
      }).pageUrl;
    expect(page({ host: "sous.example", referer: "https://evil.example/fake-signup-page" })).toBeNull();
    expect(page({ host: "sous.example", referer: "https://sous.example.evil.example/signup" })).toBeNull();
    expect(page({ host: "sous.example", origin: "https://evil.example" })).toBeNull();
    // A client that writes its own Host to match its Referer is not the site.
    expect(page({ host: "evil.example", referer: "https://evil.example/signup" })).toBeNull();
    // The working twins: the site's own page, by SITE_URL's host (localhost:3000 unset), then by SITE_URL and an alias.
    vi.stubEnv("SITE_URL", "");
    expect(page({ referer: "http://localhost:3000/signup" })).toBe("http://localhost:3000/signup");
    vi.stubEnv("SITE_URL", "https://sous.example");
    vi.stubEnv("SITE_ALIASES", "www.sous.example, Staging.Sous.Example:8443");
    expect(page({ referer: "https://sous.example/signup" })).toBe("https://sous.example/signup");
    expect(page({ referer: "https://www.sous.example/signup" })).toBe("https://www.sous.example/signup");
    expect(page({ referer: "https://staging.sous.example:8443/signup" })).toBe(
      "https://staging.sous.example:8443/signup",
    );
    expect(page({ host: "evil.example", referer: "https://evil.example/signup" })).toBeNull();
  });

  it("keeps no made-up address, caps the browser's name, and reads JavaScript as off unless the page said so", () => {
    const evidence = consentEvidence(spec, {
      phone: "+15551234567",
      ip: "unknown",
      formData: posted({ [consentFieldNames.javascript]: "true" }),
      headers: new Headers({ "user-agent": "U".repeat(1_500) }),
    });
    expect(evidence.ip).toBeNull();
    expect(evidence.userAgent).toHaveLength(1_000);
    expect(evidence.javascript).toBe(false);
    expect(
      consentEvidence(spec, { phone: "+1", ip: "::1", formData: posted(), headers: new Headers() }).userAgent,
    ).toBeNull();
  });

  it("keeps a browser's control characters as visible escapes, the rest of its name as sent", () => {
    // Header bytes arrive one character per byte: a UTF-8 right-to-left override is â, U+0080 (C1) and ®.
    const override = Buffer.from("\u202e", "utf8").toString("latin1");
    const headers = new Headers({ "user-agent": `Agent \u009b31m ${override}evil ok` });
    const spec = { text: "I agree.", page: "/signup" };
    const evidence = consentEvidence(spec, {
      phone: "+15551234567",
      ip: "203.0.113.9",
      formData: new FormData(),
      headers,
    });
    expect(evidence.userAgent).toBe("Agent \\u{009b}31m \u00e2\\u{0080}\u00aeevil ok");
    const plain = new Headers({ "user-agent": "Mozilla/5.0 (X11)" });
    expect(
      consentEvidence(spec, { phone: "+15551234567", ip: "203.0.113.9", formData: new FormData(), headers: plain })
        .userAgent,
    ).toBe("Mozilla/5.0 (X11)");
  });

  it("takes a posted version only when it looks like one (64 hex digits)", () => {
    const shown = (value: string) =>
      consentEvidence(spec, {
        phone: "+1",
        ip: "::1",
        formData: posted({ [consentFieldNames.disclosure]: value }),
        headers: new Headers(),
      }).shownVersion;
    expect(shown("a".repeat(64))).toBe("a".repeat(64));
    for (const bad of ["", "a".repeat(63), "a".repeat(65), `x${"a".repeat(64)}`, `${"a".repeat(64)}x`, "A".repeat(64)])
      expect(shown(bad), bad).toBeNull();
    const file = formData({});
    file.set(consentFieldNames.disclosure, new Blob(["a".repeat(64)]));
    expect(
      consentEvidence(spec, { phone: "+1", ip: "::1", formData: file, headers: new Headers() }).shownVersion,
    ).toBeNull();
  });
});
