import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { randomUUID } from "node:crypto";
import { NextRequest, type NextResponse, type NextFetchEvent } from "next/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { sourceCounts } from "@/server/forms/source-store";
import { stubActionEnv } from "@/tests/support/action-env";
import { config, middleware } from "@/middleware";
import { firstTouch, touchOf, TOUCH_COOKIE } from "./visits";

const own = ["sous.example", "www.sous.example"];
const touched = (url: string, referer: string | null = null) =>
  Object.fromEntries(firstTouch(new URL(url), referer, own));

describe("firstTouch", () => {
  it("keeps the first page's utm_ fields and its path", () => {
    expect(
      touched(
        "https://sous.example/?utm_source=instagram&utm_medium=social&utm_campaign=spring-launch&utm_term=chef&utm_content=reel",
        "https://l.instagram.com/",
      ),
    ).toStrictEqual({
      source: "instagram",
      medium: "social",
      campaign: "spring-launch",
      term: "chef",
      content: "reel",
      referrer: "l.instagram.com",
      landing_page: "/",
    });
  });

  it("names another site's host when the URL carries no source, and nothing of its path or query", () => {
    expect(touched("https://sous.example/signup", "https://www.google.com/search?q=ada+lovelace")).toStrictEqual({
      source: "www.google.com",
      referrer: "www.google.com",
      landing_page: "/signup",
    });
    expect(touched("https://sous.example/", "http://blog.example/")).toMatchObject({ source: "blog.example" });
    expect(touched("https://sous.example/", "ftp://files.example/")).toMatchObject({ source: "direct" });
    expect(touched("https://sous.example/?utm_medium=email", "https://news.example/issue/4")).toStrictEqual({
      source: "news.example",
      medium: "email",
      referrer: "news.example",
      landing_page: "/",
    });
  });

  it("is direct without a referrer, or with one of the site's own hosts or none a browser sends", () => {
    for (const referer of [
      null,
      "https://sous.example/terms",
      "https://WWW.sous.example/",
      "android-app://x",
      "nonsense",
    ])
      expect(touched("https://sous.example/privacy", referer), String(referer)).toStrictEqual({
        source: "direct",
        landing_page: "/privacy",
      });
  });

  it("keeps what a URL carries as typed text: one line, no control characters, 100 characters a field", () => {
    const long = "é".repeat(150);
    const touch = touched(`https://sous.example/?utm_source=%3Dcmd%7C%0A${long}&utm_campaign=%20%E2%80%AE%20`);
    expect(touch.source).toBe(`=cmd|${"é".repeat(95)}`);
    expect(touch.campaign).toBeUndefined();
    // Cut at 100, then trimmed again: no space left at either end.
    expect(touched(`https://sous.example/?utm_campaign=%20%20${"a".repeat(99)}%20b`).campaign).toBe("a".repeat(99));
  });
});

describe("touchOf", () => {
  it("reads a cookie back cleaned and bounded, direct when it says nothing, each field null when absent", () => {
    expect(touchOf(new URLSearchParams("source=instagram&campaign=spring&referrer=x.example&landing_page=/"))).toEqual({
      source: "instagram",
      medium: null,
      campaign: "spring",
      term: null,
      content: null,
      referrer: "x.example",
      landing_page: "/",
    });
    const forged = touchOf(new URLSearchParams({ source: "a\u0000b".repeat(60), medium: " \n ", id: "42" }));
    expect(forged.source).toBe("ab".repeat(50));
    expect(forged.medium).toBeNull();
    expect(forged).not.toHaveProperty("id");
    expect(touchOf(new URLSearchParams()).source).toBe("direct");
  });
});

const iPhone =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";

describe("the middleware, on a visit's first page", () => {
  afterEach(() => vi.unstubAllEnvs());
  // A public page's answer: never the console's, which may wait on the database.
  const viewed = (url: string, headers: Record<string, string> = {}, method = "GET") =>
    middleware(new NextRequest(url, { method, headers: { "user-agent": iPhone, ...headers } })) as NextResponse;

  it("runs for a browser's view of a public page until the touch cookie is set, then for views from outside only", () => {
    const runs = (path: string, headers: Record<string, string>, cookies: Record<string, string> = {}) =>
      unstable_doesMiddlewareMatch({ config, url: `http://localhost${path}`, headers, cookies });
    const browser = { "user-agent": iPhone };
    const returning = { [TOUCH_COOKIE]: "source=direct" };
    for (const path of ["/", "/signup", "/terms", "/privacy"]) {
      expect(runs(path, browser), path).toBe(true);
      expect(runs(path, { ...browser, "sec-fetch-site": "same-origin" }, returning), path).toBe(false);
      for (const site of ["cross-site", "same-site", "none"])
        expect(runs(path, { ...browser, "sec-fetch-site": site }, returning), `${path} ${site}`).toBe(true);
      // A browser too old to say: its referrer tells.
      expect(runs(path, browser, returning), path).toBe(true);
      // A script or a load test, which no one is: served as built.
      expect(runs(path, { "sec-fetch-site": "none" }), path).toBe(false);
      expect(runs(path, {}), path).toBe(false);
    }
    for (const path of ["/sent/waitlist", "/signup/x", "/signupx"])
      expect(runs(path, { ...browser, "sec-fetch-site": "same-origin" }, returning), path).toBe(
        path !== "/sent/waitlist",
      );
  });

  it("sets the cookie once, holding only the touch: HttpOnly, SameSite=Lax, for 30 days, Secure over https", () => {
    vi.stubEnv("SITE_URL", "https://sous.example");
    const cookie = viewed("https://sous.example/?utm_source=instagram&utm_campaign=spring-launch", {
      referer: "https://l.instagram.com/",
    }).headers.get("set-cookie");
    expect(cookie?.replace(/ Expires=[^;]+;/, "")).toBe(
      `${TOUCH_COOKIE}=source%3Dinstagram%26campaign%3Dspring-launch%26referrer%3Dl.instagram.com%26landing_page%3D%252F; Path=/; Max-Age=2592000; Secure; HttpOnly; SameSite=lax`,
    );
    const again = viewed("https://sous.example/signup", { cookie: `${TOUCH_COOKIE}=source%3Dinstagram` });
    expect(again.headers.get("set-cookie")).toBeNull();
  });

  it("sets none for a bot, a link preview, a prefetch, or a HEAD", () => {
    const plain = viewed("http://127.0.0.1:3000/signup", { referer: "https://www.google.com/" });
    // Over http (no TLS in front, or tried locally): not Secure, or the browser would drop it.
    expect(plain.headers.get("set-cookie")).toMatch(
      /^sous_touch=source%3Dwww\.google\.com%26[^ ]*; Path=\/; Expires=[^;]+; Max-Age=2592000; HttpOnly; SameSite=lax$/,
    );
    for (const [why, answered] of [
      ["bot", viewed("http://127.0.0.1:3000/", { "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1)" })],
      ["preview", viewed("http://127.0.0.1:3000/", { "user-agent": "facebookexternalhit/1.1 Facebot Twitterbot/1.0" })],
      ["prefetch", viewed("http://127.0.0.1:3000/", { "sec-purpose": "prefetch" })],
      ["firefox prefetch", viewed("http://127.0.0.1:3000/", { "x-moz": "prefetch" })],
      ["preview", viewed("http://127.0.0.1:3000/", { "x-purpose": "preview" })],
      ["head", viewed("http://127.0.0.1:3000/", {}, "HEAD")],
    ] as const)
      expect(answered.headers.get("set-cookie"), why).toBeNull();
  });
});

describe("the middleware, counting visits", () => {
  beforeEach(() => {
    stubActionEnv("SITE_URL", "https://sous.example");
    vi.stubEnv("SITE_ALIASES", "www.sous.example");
  });
  afterEach(() => vi.unstubAllEnvs());

  /** The views a request counts, once its waitUntil work is done. */
  async function view(url: string, headers: Record<string, string> = {}, method = "GET") {
    const work: Promise<unknown>[] = [];
    const event = { waitUntil: (promise: Promise<unknown>) => work.push(promise) } as unknown as NextFetchEvent;
    middleware(new NextRequest(url, { method, headers: { "user-agent": iPhone, ...headers } }), event);
    await Promise.all(work);
  }
  const counted = async (source: string) =>
    (await sourceCounts(await database(readEnv()), Date.now()))
      .filter((count) => count.source === source)
      .map(({ campaign, visits }) => [campaign, visits])
      .sort();

  it("counts a person's view from outside the site by its own source and campaign, with or without a touch cookie", async () => {
    const source = `ig-${randomUUID()}`;
    await view(`https://sous.example/?utm_source=${source}&utm_campaign=spring`);
    await view(`https://sous.example/signup?utm_source=${source}&utm_campaign=spring`, {
      cookie: `${TOUCH_COOKIE}=source%3Ddirect`,
      referer: "https://l.instagram.com/",
    });
    await view(`https://sous.example/?utm_source=${source}`, { referer: "https://news.example/" });
    expect(await counted(source)).toStrictEqual([
      ["", 1],
      ["spring", 2],
    ]);
  });

  it("answers the page all the same when the database fails, with a line that names no one", async () => {
    vi.stubEnv("DATA_DIR", "/proc/no-such-folder");
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    await view(`https://sous.example/?utm_source=ig`, { referer: "https://l.instagram.com/" });
    expect(warned.mock.calls.map(([line]) => JSON.parse(String(line)))).toStrictEqual([
      expect.objectContaining({ level: "warn", event: "visit_not_counted", error: "EnvError" }),
    ]);
    warned.mockRestore();
  });

  it("tells the site's own pages by the request's host where no setting names it", async () => {
    vi.stubEnv("SITE_URL", "");
    vi.stubEnv("SITE_ALIASES", "");
    const source = `ig-${randomUUID()}`;
    await view(`http://localhost:4321/signup?utm_source=${source}`, { referer: "http://localhost:4321/" });
    expect(await counted(source)).toStrictEqual([]);
    await view(`http://localhost:4321/signup?utm_source=${source}`);
    expect(await counted(source)).toStrictEqual([["", 1]]);
  });

  it("counts views that arrive together, each once", async () => {
    const source = `ig-${randomUUID()}`;
    await Promise.all([1, 2, 3].map(() => view(`https://sous.example/?utm_source=${source}`)));
    await view(`https://sous.example/?utm_source=${source}`);
    expect(await counted(source)).toStrictEqual([["", 4]]);
  });

  it("counts no view from one of the site's pages, by a bot, a preview, a prefetch or a HEAD", async () => {
    const source = `ig-${randomUUID()}`;
    const url = `https://sous.example/signup?utm_source=${source}`;
    await view(url, { referer: "https://sous.example/" });
    await view(url, { referer: "https://www.sous.example/terms" });
    await view(url, { "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1)" });
    await view(url, { "user-agent": "facebookexternalhit/1.1 Facebot Twitterbot/1.0" });
    await view(url, { "sec-purpose": "prefetch;prerender" });
    await view(url, {}, "HEAD");
    expect(await counted(source)).toStrictEqual([]);
    await view(url, { referer: "https://sous.example.evil/" });
    expect(await counted(source)).toStrictEqual([["", 1]]);
  });
});
