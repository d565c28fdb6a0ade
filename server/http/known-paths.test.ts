import { readdirSync } from "node:fs";
import path from "node:path";
import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { describe, expect, it } from "vitest";
import { formNames, formPages } from "@/lib/forms";
import { config } from "@/middleware";
import { isKnownPath } from "./known-paths";

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
      "/_nextstatic",
    ]) {
      expect(isKnownPath(unknown), unknown).toBe(false);
    }
  });
});

describe("the middleware's matcher", () => {
  const runsFor = (path: string) => unstable_doesMiddlewareMatch({ config, url: `http://localhost${path}` });

  it("leaves out every page and metadata file under app/, every form's page, and Next's own files", () => {
    const served = [
      ...pathsDefinedByApp(),
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
    ];
    for (const path of misses) {
      expect(runsFor(path), path).toBe(true);
      expect(isKnownPath(path), path).toBe(false);
    }
  });
});
