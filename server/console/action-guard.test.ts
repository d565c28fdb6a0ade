import { describe, expect, it } from "vitest";
import { fromOurPages, seeOther } from "./action-guard";

const site = new URL("https://sous.example");
const headers = (values: Record<string, string>) => new Headers(values);

describe("whether a post came from the console's own pages", () => {
  it("yes: SITE_URL's own origin, or no Origin and the browser's same-origin", () => {
    expect(fromOurPages(headers({ origin: "https://sous.example" }), site)).toBe(true);
    expect(fromOurPages(headers({ origin: "http://localhost:3001" }), new URL("http://localhost:3001/"))).toBe(true);
    expect(fromOurPages(headers({ "sec-fetch-site": "same-origin" }), site)).toBe(true);
    // An opaque Origin says nothing of where the post came from: the browser's Sec-Fetch-Site does.
    expect(fromOurPages(headers({ origin: "null", "sec-fetch-site": "same-origin" }), site)).toBe(true);
  });

  it("no: another scheme, port or alias of the site, another site, a look-alike host, an opaque or malformed Origin, a cross-site fetch, or nothing said at all", () => {
    for (const values of <Record<string, string>[]>[
      { origin: "http://sous.example" },
      { origin: "https://sous.example:8443" },
      { origin: "https://SOUS.example." },
      { origin: "https://evil.example" },
      { origin: "https://sous.example.evil.example" },
      { origin: "https://www.sous.example" },
      { origin: "null", "sec-fetch-site": "cross-site" },
      { origin: "null" },
      { origin: "not a url" },
      { origin: "https://evil.example", "sec-fetch-site": "same-origin" },
      { "sec-fetch-site": "same-site" },
      { "sec-fetch-site": "cross-site" },
      {},
    ])
      expect(fromOurPages(headers(values), site), JSON.stringify(values)).toBe(false);
  });
});

describe("the answer after an action", () => {
  it("is a 303 to the console's path, uncached", () => {
    const answer = seeOther("/console/deliveries?done=dropped");
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/console/deliveries?done=dropped");
    expect(answer.headers.get("cache-control")).toBe("no-store");
  });
});
