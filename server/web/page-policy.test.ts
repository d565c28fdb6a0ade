import { createHash } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { inlineScripts, pagePolicy, renderedBodyHeaders, renderedStreamHeaders, scriptHashes } from "./page-policy";
import { requestNoncePolicy } from "./request-nonce.mjs";

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** The script-src of a policy, as its sources. */
const scriptSrc = (policy: string) =>
  policy
    .split("; ")
    .find((directive) => directive.startsWith("script-src "))
    ?.split(" ")
    .slice(1);

// The shape Next 16 writes, and the late-hydration loader the build adds.
const page = [
  `<!DOCTYPE html><html><head><script src="/_next/static/chunks/polyfills.js" noModule=""></script>`,
  `<script type="application/ld+json">{"name":"Sous — chefs’ “assistant”"}</script></head>`,
  `<body><p>a &lt;script&gt; in text</p><script id="_R_">requestAnimationFrame(function(){$RT=performance.now()})</script>`,
  `<script>(self.__next_f=self.__next_f||[]).push([0])</script><SCRIPT>self.__next_f.push([1,"x"])</SCRIPT>`,
  `<script data-after-paint="">(function(p,s){})("/_next/static/chunks/",["a.js"])</script>`,
  `<scripts>not a script</scripts><script>(self.__next_f=self.__next_f||[]).push([0])</script></body></html>`,
].join("");

describe("inlineScripts", () => {
  it("reads the text of every script without a src, in order, whatever the tag's case, and nothing else", () => {
    expect(inlineScripts(page)).toEqual([
      `{"name":"Sous — chefs’ “assistant”"}`,
      "requestAnimationFrame(function(){$RT=performance.now()})",
      "(self.__next_f=self.__next_f||[]).push([0])",
      'self.__next_f.push([1,"x"])',
      '(function(p,s){})("/_next/static/chunks/",["a.js"])',
      "(self.__next_f=self.__next_f||[]).push([0])",
    ]);
  });

  it("reads a script with no attributes, one closed by a self-closing slash, and stops at an unclosed one", () => {
    expect(inlineScripts("<script>a()</script><script/>b()</script><script>c(")).toEqual(["a()", "b()"]);
    expect(inlineScripts("<script>a()")).toEqual([]);
    // A tag left open at the end, after a closed one: the closed one's text, once.
    expect(inlineScripts("<script>a()</script><script")).toEqual(["a()"]);
    expect(inlineScripts("<p>x</p><script>a()</script>")).toEqual(["a()"]);
    expect(inlineScripts("<script")).toEqual([]);
  });

  it("leaves out a script with a src, whatever its spacing", () => {
    expect(
      inlineScripts(`<script async src="/a.js"></script><script\tsrc = "/b.js"></script><script>c()</script>`),
    ).toEqual(["c()"]);
  });

  it("reads a page of a million characters of unclosed tags as having none", () => {
    expect(inlineScripts(`<script>${"<script".repeat(150_000)}`)).toEqual([]);
  });
});

describe("scriptHashes", () => {
  it("hashes each distinct inline script's UTF-8 text once, as a browser does", () => {
    const hashes = scriptHashes(page);
    expect(hashes).toHaveLength(5);
    expect(hashes).toContain(sha256(`{"name":"Sous — chefs’ “assistant”"}`));
    expect(hashes).toContain(sha256("(self.__next_f=self.__next_f||[]).push([0])"));
    // Known vector: the sha256 of "alert('Hello, world.');", as the CSP specification gives it.
    expect(scriptHashes("<script>alert('Hello, world.');</script>")).toEqual([
      "'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='",
    ]);
  });
});

describe("pagePolicy", () => {
  it("allows the page's own scripts by hash and from the site's origin, never any inline script", () => {
    const sources = scriptSrc(pagePolicy(page));
    expect(sources).toEqual(["'self'", ...scriptHashes(page)]);
    expect(sources).not.toContain("'unsafe-inline'");
    expect(pagePolicy(page)).toContain("object-src 'none'");
  });

  it("gives `next dev`, which renders every page per request, no hashes", () => {
    expect(scriptSrc(pagePolicy(page, true))).toEqual([
      "'self'",
      "'unsafe-inline'",
      "'unsafe-eval'",
      "https://va.vercel-scripts.com",
    ]);
  });
});

describe("the headers Next's patched send-payload asks for", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("hashes an HTML page sent whole, and leaves any other body alone", () => {
    expect(renderedBodyHeaders(page, "text/html; charset=utf-8")).toEqual({
      "Content-Security-Policy": pagePolicy(page),
    });
    expect(renderedBodyHeaders(page, "text/x-component")).toBeUndefined();
    expect(renderedBodyHeaders(page, undefined)).toBeUndefined();
  });

  it("hashes nothing under `next dev`", () => {
    vi.stubEnv("NODE_ENV", "development");
    expect(renderedBodyHeaders(page, "text/html")).toEqual({ "Content-Security-Policy": pagePolicy(page, true) });
    const streamed = renderedStreamHeaders({ "content-security-policy": requestNoncePolicy() }, "text/html");
    expect(scriptSrc(streamed?.["Content-Security-Policy"] ?? "")).toContain("'unsafe-inline'");
  });

  it("answers a page streamed for this request with the nonce Next read from the request's policy", () => {
    const request = requestNoncePolicy();
    const nonce = /'nonce-([^']+)'/.exec(request)?.[1] ?? "";
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    const policy =
      renderedStreamHeaders({ "content-security-policy": request }, "text/html; charset=utf-8")?.[
        "Content-Security-Policy"
      ] ?? "";
    expect(scriptSrc(policy)).toEqual(["'self'", `'nonce-${nonce}'`]);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(requestNoncePolicy()).not.toBe(request);
  });

  it("answers a streamed page without a nonce with no inline script allowed, and leaves any other body alone", () => {
    for (const headers of [
      {},
      { "content-security-policy": "script-src 'nonce-short'" },
      { "content-security-policy": "script-src 'unsafe-inline'" },
    ])
      expect(scriptSrc(renderedStreamHeaders(headers, "text/html")?.["Content-Security-Policy"] ?? "")).toEqual([
        "'self'",
      ]);
    expect(
      renderedStreamHeaders({ "content-security-policy": requestNoncePolicy() }, "text/x-component"),
    ).toBeUndefined();
    expect(renderedStreamHeaders({ "content-security-policy": requestNoncePolicy() }, undefined)).toBeUndefined();
  });
});
