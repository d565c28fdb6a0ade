import { readdirSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { describe, expect, it, vi } from "vitest";
import { formNames, formPages } from "@/lib/forms";
import { NextRequest } from "next/server";
import { config, middleware } from "@/middleware";
import { EVERY_PATH } from "./every-path.mjs";
import { hashesForAnyPath } from "./page-policy";
import { randomUUID } from "node:crypto";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { recordConsent } from "@/server/consent/consent-store";
import { disclosureOf } from "@/server/consent/disclosure";
import { newWebhookId } from "@/server/outbox/outbox-store";
import { plainEvidence } from "@/tests/support/waitlist-lead";
import { isConsolePath, isKnownPath } from "./known-paths";

// Metadata files under app/ and the URL each one answers at.
const metadataFiles: Record<string, string> = {
  "apple-icon.tsx": "apple-icon",
  "opengraph-image.tsx": "opengraph-image",
  "twitter-image.tsx": "twitter-image",
};

/** The URL paths the files under app/ define; a [form] segment stands for every form. */
function pathsDefinedByApp(dir = "app", prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory() && entry.name === "[form]")
      return formNames.flatMap((form) => pathsDefinedByApp(path.join(dir, entry.name), `${prefix}/${form}`));
    if (entry.isDirectory()) return pathsDefinedByApp(path.join(dir, entry.name), `${prefix}/${entry.name}`);
    if (entry.name === "page.tsx" || entry.name === "route.ts") return [prefix || "/"];
    const metadataPath = metadataFiles[entry.name];
    return metadataPath ? [`${prefix}/${metadataPath}`] : [];
  });
}

describe("isKnownPath", () => {
  it("knows every page and metadata file under app/", () => {
    const paths = pathsDefinedByApp();
    expect(paths).toContain("/");
    expect(paths).toContain("/signup");
    expect(paths).toContain("/api/cron/redeliver");
    expect(paths).toEqual(expect.arrayContaining(["/sent/contact", "/sent/waitlist"]));
    for (const known of paths) expect(isKnownPath(known), known).toBe(true);
  });

  it("knows framework assets and tolerates a trailing slash", () => {
    expect(isKnownPath("/_next/static/chunks/app.js")).toBe(true);
    expect(isKnownPath("/signup/")).toBe(true);
  });

  it("does not know anything else", () => {
    for (const unknown of [
      "/sent/contact/text-start",
      // Gone: a sign-up of a number that replied STOP is answered like any other.
      "/sent/waitlist/text-start",
      "/sent/catering",
      "/signupx",
      "/pricing",
      "/pricing/",
      "/admin",
      "/Signup",
      "/.env",
      "/console/admin",
      "/console/enrol/",
      "/_nextstatic",
    ]) {
      expect(isKnownPath(unknown), unknown).toBe(false);
    }
  });
});

// A visitor past their first page carries the touch cookie: their views run no middleware.
const returning = { sous_touch: "source=direct" };

describe("the middleware's matcher", () => {
  const runsFor = (path: string) =>
    unstable_doesMiddlewareMatch({ config, url: `http://localhost${path}`, cookies: returning });

  it("leaves out every page and metadata file under app/ but the console's, every form's page, and Next's own files", () => {
    const served = [
      ...pathsDefinedByApp().filter((path) => !isConsolePath(path)),
      ...formPages,
      "/signup/",
      "/_next/static/chunks/app.js",
      "/_next/image",
      "/_vercel/insights/script.js",
    ];
    for (const path of served) expect(runsFor(path), `${path}: add it to the matcher in middleware.ts`).toBe(false);
  });

  it("runs for every other path, so a miss is logged", () => {
    const misses = [
      "/signupx",
      "/signup/extra",
      "/sent/contact/text-start",
      "/sent/waitlist/text-start",
      "/sent/catering",
      "/pricing",
      "/no/such-page",
      "/icon.svgx",
      "/robots.txt.bak",
      "/_nextstatic",
      "/.env",
      "/console/nope",
      "/console/enrol",
      "/console/enrol/a/b",
      "/consoles",
    ];
    for (const path of misses) {
      expect(runsFor(path), path).toBe(true);
      expect(isKnownPath(path), path).toBe(false);
    }
  });
});

describe("the middleware, for a form's post", () => {
  const runsFor = (path: string, headers: Record<string, string> = {}) =>
    unstable_doesMiddlewareMatch({ config, url: `http://localhost${path}`, headers, cookies: returning });
  const form = { "content-type": "multipart/form-data; boundary=x" };

  it("runs for a body sent to any page, and not for the API routes' bodies nor Next's files", () => {
    for (const path of ["/", "/signup", "/sent/waitlist", "/terms"]) {
      expect(runsFor(path, form), path).toBe(true);
      expect(runsFor(path), `${path} without a body`).toBe(false);
    }
    for (const path of ["/api/consent/revoke", "/api/health", "/_next/static/chunks/app.js"])
      expect(runsFor(path, { "content-type": "application/json" }), path).toBe(false);
  });

  it("gives the page Next renders for the post a nonce of its own, in the request's policy, and nothing to a view", async () => {
    const posted = async (path: string) =>
      (
        await middleware(new NextRequest(`http://localhost${path}`, { method: "POST", headers: form, body: "x" }))
      ).headers.get("x-middleware-request-content-security-policy");
    const first = await posted("/signup");
    expect(first).toMatch(/^script-src 'nonce-[A-Za-z0-9+/]{22}=='$/);
    expect(await posted("/signup")).not.toBe(first);
    // Not the console's headers: a form's page is cached as the site's pages are.
    const answer = await middleware(
      new NextRequest("http://localhost/signup", { method: "POST", headers: form, body: "x" }),
    );
    expect(answer.headers.get("x-robots-tag")).toBeNull();
    const viewed = await middleware(new NextRequest("http://localhost/signup"));
    expect(viewed.headers.get("x-middleware-request-content-security-policy")).toBeNull();
    expect(viewed.headers.get("x-middleware-next")).toBe("1");
  });

  it("gives a path no route answers a nonce when viewed too: an error may be rendered for it", async () => {
    // Its miss is logged (Next's testing module patches the console, which then fails outside a request).
    const warned = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const viewed = async (path: string) =>
      (await middleware(new NextRequest(`http://localhost${path}`))).headers.get(
        "x-middleware-request-content-security-policy",
      );
    for (const path of ["/nope", "/sent/nope", "/signup/x"]) {
      expect(runsFor(path), path).toBe(true);
      expect(await viewed(path), path).toMatch(/^script-src 'nonce-[A-Za-z0-9+/]{22}=='$/);
    }
    expect(warned).toHaveBeenCalledTimes(3);
    warned.mockRestore();
    // Beside them, the site's own pages and routes, viewed: none.
    for (const path of ["/terms", "/api/health", "/robots.txt"]) expect(await viewed(path), path).toBeNull();
  });
});

describe("hashesForAnyPath", () => {
  it("reads the hashes the build wrote for every path, and none without a build", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-manifest-"));
    try {
      const policy = "default-src 'self'; script-src 'self' 'sha256-a' 'sha256-b'; object-src 'none'";
      await writeFile(
        path.join(dir, "routes-manifest.json"),
        JSON.stringify({
          headers: [{ source: EVERY_PATH, headers: [{ key: "Content-Security-Policy", value: policy }] }],
        }),
      );
      expect(hashesForAnyPath(dir)).toStrictEqual(["'sha256-a'", "'sha256-b'"]);
      expect(hashesForAnyPath(path.join(dir, "none"))).toStrictEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the middleware, for the console", () => {
  const runsFor = (path: string) => unstable_doesMiddlewareMatch({ config, url: `http://localhost${path}` });
  const answered = async (path: string, method = "GET") =>
    (await middleware(new NextRequest(`http://localhost${path}`, { method, body: method === "POST" ? "x" : null })))
      .headers;

  it("runs for every console page, viewed or posted, giving it a nonce and the console's headers; a public page gets neither", async () => {
    const consolePages = pathsDefinedByApp().filter(isConsolePath);
    expect(consolePages).toEqual(expect.arrayContaining(["/console", "/console/sign-in", "/console/enrol/[token]"]));
    for (const path of consolePages) {
      expect(runsFor(path), path).toBe(true);
      for (const method of ["GET", "POST"]) {
        const headers = await answered(path, method);
        expect(headers.get("x-middleware-request-content-security-policy"), `${method} ${path}`).toMatch(
          /^script-src 'nonce-[A-Za-z0-9+/]{22}=='$/,
        );
        expect(headers.get("cache-control"), path).toBe("no-store");
        expect(headers.get("x-robots-tag"), path).toBe("noindex, nofollow");
      }
    }
    // Its twin: a public page viewed, run through the same function.
    const viewed = await answered("/terms");
    expect(viewed.get("x-middleware-request-content-security-policy")).toBeNull();
    expect(viewed.get("x-robots-tag")).toBeNull();
    expect(viewed.get("cache-control")).toBeNull();
  });

  it("answers an unknown console address with the console's 404 page, viewed; a post to it, and a chef's page without a session, go on", async () => {
    const warned = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const unknown = await middleware(new NextRequest("http://localhost/console/nope"));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("x-middleware-rewrite")).toBe("http://localhost/console/no-such-page?of=page");
    expect(unknown.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    expect(unknown.headers.get("x-middleware-request-content-security-policy")).toMatch(/^script-src 'nonce-/);
    for (const [path, method] of [
      ["/console/nope", "POST"],
      ["/console/waitlist", "GET"],
      ["/console/chefs/con_nobody", "GET"],
    ]) {
      const answer = await middleware(
        new NextRequest(`http://localhost${path}`, { method, body: method === "POST" ? "x" : null }),
      );
      expect(answer.headers.get("x-middleware-rewrite"), `${method} ${path}`).toBeNull();
      expect(answer.headers.get("x-middleware-next"), `${method} ${path}`).toBe("1");
    }
    warned.mockRestore();
  });

  it("answers a chef no record has with the console's 404 page, for a browser with a session cookie; a chef with one goes on", async () => {
    const id = `con_${randomUUID()}`;
    const phone = "+12125550177";
    await recordConsent(await database(readEnv()), {
      evidence: plainEvidence(phone, disclosureOf("I agree.")),
      leadId: newWebhookId(),
      at: Date.now(),
      id,
    });
    const viewed = async (key: string, cookie?: string) =>
      (
        await middleware(
          new NextRequest(`http://localhost/console/chefs/${key}`, { headers: cookie ? { cookie } : {} }),
        )
      ).headers;
    const rewritten = (headers: Headers) => headers.get("x-middleware-rewrite");
    expect(rewritten(await viewed("con_nobody", "sous-console=x"))).toBe(
      "http://localhost/console/no-such-page?of=chef",
    );
    expect(rewritten(await viewed(id, "sous-console=x"))).toBeNull();
    expect(rewritten(await viewed("con_nobody"))).toBeNull();
    expect(rewritten(await viewed("x".repeat(101), "sous-console=x"))).toBe(
      "http://localhost/console/no-such-page?of=chef",
    );
  });
});
