import { buildCustomRoute } from "next/dist/lib/build-custom-route";
import { describe, expect, it } from "vitest";
import { EVERY_PATH } from "../server/web/every-path.mjs";
import { pagePolicy, scriptHashes } from "../server/web/page-policy";
import { contentSecurityPolicy, securityHeaders } from "../server/web/security-headers";
import { pathOfPage, withPageHeaders } from "./page-headers";

// next.config.ts's rule for every path, as `next build` writes it into the routes manifest.
const everyPath = buildCustomRoute("header", {
  source: EVERY_PATH,
  headers: securityHeaders({ development: false }).map(([key, value]) => ({ key, value })),
});
const otherRule = buildCustomRoute("header", { source: "/api/:path*", headers: [{ key: "X-Other", value: "1" }] });
const manifest = { version: 3, headers: [everyPath, otherRule], redirects: [] };

const page = (script: string) => `<!DOCTYPE html><html><body><p>x</p><script>${script}</script></body></html>`;
const pages = [
  { name: "index", html: page("home()") },
  { name: "sent/waitlist", html: page("sent()") },
  { name: "_not-found", html: page("console.log(location.pathname)") },
  { name: "_global-error", html: page("failed()") },
];

const policyOf = (rule: { headers: { key: string; value: string }[] } | undefined) =>
  rule?.headers.filter(({ key }) => key === "Content-Security-Policy").map(({ value }) => value);

describe("pathOfPage", () => {
  it("names the path a prerendered page answers at, and none for the pages that answer any path", () => {
    expect(pathOfPage("index")).toBe("/");
    expect(pathOfPage("signup")).toBe("/signup");
    expect(pathOfPage("sent/contact")).toBe("/sent/contact");
    expect(pathOfPage("_not-found")).toBeNull();
    expect(pathOfPage("_global-error")).toBeNull();
  });
});

describe("withPageHeaders", () => {
  // Written in each test, not once for all: a mutation run activates its edits per test.
  const writtenNow = () => withPageHeaders(manifest, pages);

  it("gives each page one rule, after the rule for every path, with its own hashes, as Next compiles a rule", () => {
    const written = writtenNow();
    expect(written.headers.map(({ source }) => source)).toEqual([EVERY_PATH, "/api/:path*", "/", "/sent/waitlist"]);
    const home = written.headers[2];
    expect(home).toEqual(
      buildCustomRoute("header", {
        source: "/",
        headers: [{ key: "Content-Security-Policy", value: pagePolicy(page("home()")) }],
      }),
    );
    expect(new RegExp(home?.regex ?? "$^").test("/")).toBe(true);
    expect(policyOf(written.headers[3])).toEqual([pagePolicy(page("sent()"))]);
  });

  it("allows the 404 and error pages' scripts at every path, keeps that rule's other headers, and leaves other rules alone", () => {
    const written = writtenNow();
    const every = written.headers[0];
    const hashes = [...scriptHashes(page("console.log(location.pathname)")), ...scriptHashes(page("failed()"))];
    expect(policyOf(every)).toEqual([contentSecurityPolicy({ development: false, scripts: hashes })]);
    expect(every?.headers.map(({ key }) => key).sort()).toEqual(everyPath.headers.map(({ key }) => key).sort());
    expect(every?.regex).toBe(everyPath.regex);
    expect(written.headers[1]).toBe(otherRule);
    expect(written).toMatchObject({ version: 3, redirects: [] });
    // A page's hash is not allowed at every path.
    expect(policyOf(every)?.[0]).not.toContain(scriptHashes(page("home()"))[0]);
  });

  it("replaces the rules of an earlier run rather than adding a second", () => {
    const written = writtenNow();
    const again = withPageHeaders(written, [{ name: "index", html: page("home(2)") }, ...pages.slice(1)]);
    expect(again.headers.map(({ source }) => source)).toEqual([EVERY_PATH, "/api/:path*", "/", "/sent/waitlist"]);
    expect(policyOf(again.headers[2])).toEqual([pagePolicy(page("home(2)"))]);
    expect(policyOf(again.headers[0])).toEqual(policyOf(written.headers[0]));
  });

  it("refuses a manifest without the rule for every path, whose 404 page would have its scripts refused", () => {
    expect(() => withPageHeaders({ headers: [otherRule] }, pages)).toThrow(`no header rule for ${EVERY_PATH}`);
  });
});
