import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { inlineScripts, noncePolicies, pagePolicy, scriptHashes } from "./page-policy";

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
});

describe("a page rendered per request", () => {
  it("is given a fresh nonce, and its answer allows that nonce alone", () => {
    const { request, response } = noncePolicies(false);
    const nonce = /^script-src 'nonce-([^']+)'$/.exec(request)?.[1] ?? "";
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(scriptSrc(response)).toEqual(["'self'", `'nonce-${nonce}'`]);
    expect(response).toContain("frame-ancestors 'none'");
    expect(noncePolicies(false).request).not.toBe(request);
  });

  it("allows inline scripts under `next dev`", () => {
    expect(scriptSrc(noncePolicies(true).response)).toContain("'unsafe-inline'");
  });
});
