import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  actionPagesOf,
  allowOf,
  bodyVerdict,
  CONSENT_CALL_BYTES,
  FORM_POST_BYTES,
  optionsAllow,
  pathOf,
  routeBodies,
} from "./request-bodies.mjs";

const manifest = {
  node: {
    abc: { workers: { "app/page": {}, "app/signup/page": {} } },
    def: { workers: { "app/(site)/sent/[form]/page": {}, "app/api/x/route": {} } },
  },
};
const pages = actionPagesOf(manifest);
const post = (pathname: string, contentLength?: number, chunked = false) =>
  bodyVerdict(
    {
      method: "POST",
      pathname,
      contentLength: contentLength === undefined ? undefined : String(contentLength),
      chunked,
    },
    pages,
  );

describe("actionPagesOf", () => {
  it("turns the manifest's pages into paths: a dynamic segment is one segment, a route group nothing", () => {
    const matches = (pathname: string) => pages.some((page) => page.test(pathname));
    expect(["/", "/signup", "/signup/", "/sent/contact"].every(matches)).toBe(true);
    expect(["/signupx", "/sent", "/sent/a/b", "/api/x", "/nope", "/sent/contact/x"].some(matches)).toBe(false);
    expect(actionPagesOf({})).toStrictEqual([]);
  });
});

describe("bodyVerdict", () => {
  it("takes a body where a route or a form does, up to its limit", () => {
    expect(post("/signup", 1_000)).toStrictEqual({ take: true });
    expect(post("/", FORM_POST_BYTES)).toStrictEqual({ take: true });
    expect(post("/api/consent/revoke", CONSENT_CALL_BYTES)).toStrictEqual({ take: true });
    // A consent call may stream: the route reads it no further than its limit.
    expect(post("/api/consent/renew", undefined, true)).toStrictEqual({ take: true });
    // A route's path with a trailing slash is that route (Next redirects it); "/" is the home page's form.
    expect(post("/api/consent/revoke/", CONSENT_CALL_BYTES)).toStrictEqual({ take: true });
    expect(post("/api/consent/revoke/", CONSENT_CALL_BYTES + 1)).toStrictEqual({ take: false, status: 413 });
    expect(post("/", FORM_POST_BYTES + 1)).toStrictEqual({ take: false, status: 413 });
  });

  it("answers 413 past the limit, and 411 for a form post that does not say its length", () => {
    expect(post("/signup", FORM_POST_BYTES + 1)).toStrictEqual({ take: false, status: 413 });
    expect(post("/api/consent/revoke", CONSENT_CALL_BYTES + 1)).toStrictEqual({ take: false, status: 413 });
    expect(post("/signup", undefined, true)).toStrictEqual({ take: false, status: 411 });
  });

  it("answers 405 for a body anywhere else, whatever its size or framing, and for a method the route does not take", () => {
    expect(post("/nope", 10)).toStrictEqual({ take: false, status: 405 });
    expect(post("/nope", undefined, true)).toStrictEqual({ take: false, status: 405 });
    expect(post("/terms", 10)).toStrictEqual({ take: false, status: 405 });
    expect(post("/_next/static/x.js", 10)).toStrictEqual({ take: false, status: 405 });
    const put = { method: "PUT", pathname: "/signup", contentLength: "10", chunked: false };
    expect(bodyVerdict(put, pages)).toStrictEqual({ take: false, status: 405 });
    expect(bodyVerdict({ ...put, pathname: "/api/consent/revoke" }, pages)).toStrictEqual({ take: false, status: 405 });
  });

  it("lets a request with no body through, to whatever answers it", () => {
    expect(post("/nope")).toStrictEqual({ take: true });
    expect(post("/nope", 0)).toStrictEqual({ take: true });
    expect(bodyVerdict({ method: "GET", pathname: "/", contentLength: undefined, chunked: false }, [])).toStrictEqual({
      take: true,
    });
  });
});

describe("a form's post from another site", () => {
  const from = (origin: string | undefined, host: string | undefined, pathname = "/signup") =>
    bodyVerdict({ method: "POST", pathname, contentLength: "100", chunked: false, origin, host }, pages);

  it("is 403 when its Origin names another host than the request's (X-Forwarded-Host, else Host), or is no URL", () => {
    expect(from("https://evil.example", "sous.example")).toStrictEqual({ take: false, status: 403 });
    expect(from("https://sous.example.evil.example", "sous.example")).toStrictEqual({ take: false, status: 403 });
    expect(from("null", "sous.example")).toStrictEqual({ take: false, status: 403 });
    expect(from("https://sous.example", undefined)).toStrictEqual({ take: false, status: 403 });
    // Refused whatever its body: an empty one too.
    expect(
      bodyVerdict(
        {
          method: "POST",
          pathname: "/",
          contentLength: "0",
          chunked: false,
          origin: "https://evil.example",
          host: "sous.example",
        },
        pages,
      ),
    ).toStrictEqual({ take: false, status: 403 });
  });

  it("is taken from the site itself, or with no Origin; and only a form's post is judged by it", () => {
    expect(from("https://sous.example", "sous.example")).toStrictEqual({ take: true });
    expect(from("https://sous.example", "SOUS.example")).toStrictEqual({ take: true });
    expect(from("http://127.0.0.1:3210", "127.0.0.1:3210, proxy.internal")).toStrictEqual({ take: true });
    expect(from("https://sous.example", " sous.example , proxy.internal")).toStrictEqual({ take: true });
    expect(from(undefined, "sous.example")).toStrictEqual({ take: true });
    // The workflow's calls come from no browser page: the route's signature is their check.
    expect(from("https://evil.example", "sous.example", "/api/consent/revoke")).toStrictEqual({ take: true });
  });
});

describe("a post that names a server action", () => {
  const action = (pathname: string, origin: string) =>
    bodyVerdict(
      {
        method: "POST",
        pathname,
        contentLength: "100",
        chunked: false,
        origin,
        host: "sous.example",
        nextAction: true,
      },
      pages,
    );

  it("is judged as a form's post on any path: from another site 403, from the site itself taken", () => {
    expect(action("/terms", "https://evil.example")).toStrictEqual({ take: false, status: 403 });
    expect(action("/nope/deeper", "https://evil.example")).toStrictEqual({ take: false, status: 403 });
    expect(action("/api/consent/revoke", "https://evil.example")).toStrictEqual({ take: false, status: 403 });
    expect(action("/terms", "https://sous.example")).toStrictEqual({ take: true });
  });

  it("is judged by the path the routes match: an encoded or absolute-form target is the page it names", () => {
    const foreignTo = (target: string) =>
      bodyVerdict(
        {
          method: "POST",
          pathname: pathOf(target),
          contentLength: "100",
          chunked: false,
          origin: "https://evil.example",
          host: "sous.example",
        },
        pages,
      );
    expect(foreignTo("/%73ignup")).toStrictEqual({ take: false, status: 403 });
    expect(foreignTo("http://sous.example/signup?x=1")).toStrictEqual({ take: false, status: 403 });
    expect(foreignTo("/%73ignup/")).toStrictEqual({ take: false, status: 403 });
  });
});

describe("pathOf", () => {
  it("reads a request target as the routes match it", () => {
    expect(pathOf("/signup?ref=x")).toBe("/signup");
    expect(pathOf("/%73ign%75p")).toBe("/signup");
    expect(pathOf("http://sous.example/terms?x")).toBe("/terms");
    expect(pathOf("/")).toBe("/");
    // What it cannot read it leaves as it came.
    expect(pathOf("/%E0%A4%A")).toBe("/%E0%A4%A");
    expect(pathOf("*")).toBe("*");
    // An absolute-form target no URL parser reads (a host left open) is its text before any query.
    expect(pathOf("http://[::1/signup?x=1")).toBe("http://[::1/signup");
    expect(pathOf("sous.example:443")).toBe("sous.example:443");
  });
});

describe("allowOf", () => {
  it("names what each path takes: a form's page GET, HEAD, POST and OPTIONS, a route that takes a body POST, the rest GET and HEAD", () => {
    expect(allowOf("/signup", pages)).toBe("GET, HEAD, POST, OPTIONS");
    expect(allowOf("/", pages)).toBe("GET, HEAD, POST, OPTIONS");
    expect(allowOf("/api/consent/revoke", pages)).toBe("POST");
    expect(allowOf("/api/consent/renew/", pages)).toBe("POST");
    expect(allowOf("/console/invitations/send", pages)).toBe("POST");
    expect(allowOf("/terms", pages)).toBe("GET, HEAD");
    expect(allowOf("/nope", pages)).toBe("GET, HEAD");
  });
});

describe("optionsAllow", () => {
  it("names POST on a page that takes a form's post, and leaves every other path to Next", () => {
    expect(optionsAllow("/signup", pages)).toBe("GET, HEAD, POST, OPTIONS");
    expect(optionsAllow("/", pages)).toBe("GET, HEAD, POST, OPTIONS");
    expect(optionsAllow("/terms", pages)).toBeUndefined();
    expect(optionsAllow("/api/consent/revoke", pages)).toBeUndefined();
  });
});

describe("routeBodies", () => {
  it("lists every route handler under app/ that takes a POST, and nothing else", () => {
    const routes: string[] = [];
    const visit = (folder: string) => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const at = path.join(folder, entry.name);
        if (entry.isDirectory()) visit(at);
        else if (
          entry.name === "route.ts" &&
          /export (async )?function (POST|PUT|PATCH|DELETE)\b/.test(readFileSync(at, "utf8"))
        )
          routes.push(`/${path.relative("app", path.dirname(at))}`);
      }
    };
    visit("app");
    expect(routes.sort()).toStrictEqual([...routeBodies.keys()].sort());
  });
});
