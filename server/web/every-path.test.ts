import { buildCustomRoute } from "next/dist/server/lib/router-utils/filesystem";
import { compileNonPath } from "next/dist/shared/lib/router/utils/prepare-destination";
import { describe, expect, it } from "vitest";
import { EVERY_PATH } from "./every-path.mjs";
import { securityHeaders } from "./security-headers";

// As Next's router builds a header rule of the routes manifest when the server starts.
const ruleOf = (source: string) =>
  buildCustomRoute("header", { source, headers: [] }, undefined, false) as { match: (path: string) => unknown };
const paths = ["/", "/signup", "/sent/waitlist", "/console/chefs/con_1", "/_next/static/chunks/a.js", "/no/such/page"];

describe("EVERY_PATH", () => {
  it("matches every path and gives Next's router no parameter, so no header value is compiled per request", () => {
    const every = ruleOf(EVERY_PATH);
    for (const path of paths) expect(every.match(path), path).toEqual({});
    // Beside it, the named form next.config.ts had: a parameter on every path but "/", each value then compiled.
    const named = ruleOf("/:path*");
    expect(named.match("/signup")).toEqual({ path: ["signup"] });
    expect(named.match("/")).toEqual({});
  });

  it("is a rule whose values Next would have sent unchanged anyway: compiling them gave the same text", () => {
    for (const [key, value] of securityHeaders({ development: false })) {
      expect(compileNonPath(value, { path: ["signup"] }), key).toBe(value);
    }
    expect(securityHeaders({ development: false }).some(([, value]) => value.includes(":"))).toBe(true);
  });
});
