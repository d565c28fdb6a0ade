import { describe, expect, it } from "vitest";
import { maskedPath } from "./masked-path";

describe("maskedPath", () => {
  it("masks an email address or a phone number typed into a path, encoded or not", () => {
    expect(maskedPath("/unsubscribe/chef@example.com")).toBe("/unsubscribe/[email]");
    expect(maskedPath("/unsubscribe/chef%40example.com")).toBe("/unsubscribe/[email]");
    expect(maskedPath("/stop/+15552014480")).toBe("/stop/[phone]");
    expect(maskedPath("/stop/(555)%20201-4480/now")).toBe("/stop/[phone]/now");
    expect(maskedPath("/call/555.201.4480")).toBe("/call/[phone]");
  });

  it("masks a console enrolment link's token, a one-time credential, and keeps the rest of the path", () => {
    const token = "Xq3_9vZ-k2LmN8pQrS7tUvW0xYz1AbCdEfGhIjKlMnO";
    expect(maskedPath(`/console/enrol/${token}`)).toBe("/console/enrol/[token]");
    expect(maskedPath(`/console/enrol/${token}/more`)).toBe("/console/enrol/[token]/more");
    // Only there: the same word elsewhere in a path is no token.
    expect(maskedPath(`/docs/console/enrol/${token}`)).toBe(`/docs/console/enrol/${token}`);
  });

  it("masks digits in any spelling: underscores, slashes, full-width digits", () => {
    expect(maskedPath("/call/415_555_0132")).toBe("/call/[phone]");
    expect(maskedPath("/call/415/555/0132")).toBe("/call/[phone]");
    expect(maskedPath("/call/４１５５５５０１３２")).toBe("/call/[phone]");
    expect(maskedPath("/call/%EF%BC%94%EF%BC%91%EF%BC%95 555 0132")).toBe("/call/[phone]");
    // Superscript and circled digits (\p{No}), alone and beside plain ones.
    expect(maskedPath("/call/⁴¹⁵⁵⁵⁵⁰¹³²")).toBe("/call/[phone]");
    expect(maskedPath("/call/④①⑤-555-0132")).toBe("/call/[phone]");
    expect(maskedPath("/call/%E2%81%B4%C2%B9%E2%81%B5 555 0132")).toBe("/call/[phone]");
  });

  it("decodes each run of escapes on its own: a bad one leaves an address beside it readable, and masked", () => {
    expect(maskedPath("/%E0%A4%A/chef%40example.com")).toBe("/%E0%A4%A/[email]");
    // Escapes side by side are still each their own: a bad byte between digits hides none of them.
    expect(maskedPath("/call/%34%31%35%FF%35%35%35%FF%30%31%33%32")).toBe("/call/[phone]");
    expect(maskedPath("/call/%34%31%35%80%C3%35%35%35%30%31%33%32")).toBe("/call/[phone]");
    // A character of several bytes is decoded whole, and a bad byte beside it is kept as it came.
    expect(maskedPath("/caf%C3%A9%FF")).toBe("/café%FF");
    expect(maskedPath("/%F0%9F%91%A8%E2%80%8D%F0%9F%8D%B3")).toBe("/👨‍🍳");
    // A character's first byte says how many bytes it spans: three from E0, one for a byte under 80.
    expect(maskedPath("/%E0%A4%85%C3%A9")).toBe("/अé");
    expect(maskedPath("/a%41%FF")).toBe("/aA%FF");
  });

  it("keeps what names no one: the path's words, short numbers, a bad encoding as it came", () => {
    expect(maskedPath("/wp-login.php")).toBe("/wp-login.php");
    expect(maskedPath("/blog/2026/11/page-2")).toBe("/blog/2026/11/page-2");
    expect(maskedPath("/%E0%A4%A")).toBe("/%E0%A4%A");
    expect(maskedPath(`/${"a".repeat(300)}`)).toHaveLength(200);
  });

  it("reads a bounded head of a path of any length: 64 KB is masked from its first 600 characters", () => {
    const head = `/${"a@b".repeat(199)}x`;
    expect(head).toHaveLength(599);
    const answer = maskedPath(head);
    for (const tail of ["@".repeat(64 * 1024), "a".repeat(64 * 1024), "5".repeat(64 * 1024), "x@y.".repeat(16 * 1024)])
      expect(maskedPath(`${head}${tail}`).slice(0, 190)).toBe(answer.slice(0, 190));
    expect(maskedPath(`/${"@a".repeat(32 * 1024)}`)).toHaveLength(200);
    // Over 64 KB of addresses, 60 characters each: the nine within the first 600 characters are all it reads.
    const addresses = `/${Array.from({ length: 1_100 }, (_, i) => `${"c".repeat(43)}${String(i).padStart(4, "0")}@example.com`).join("/")}`;
    expect(addresses.length).toBeGreaterThan(64 * 1024);
    expect(maskedPath(addresses)).toBe(`/${"[email]/".repeat(9)}[cut]`);
  });

  it("masks what the cut leaves of a number or an address at its edge, with no digits of it kept", () => {
    // Seven long addresses shrink to "[email]" each, so what stood at the cut comes within the 200 kept:
    // the number starts three characters before it.
    const emails = Array.from({ length: 7 }, (_, i) => `${"chef".repeat(15)}${i}@example.com`).join("/");
    const path = `/${emails}/${"x".repeat(594 - emails.length)}/4155550132`;
    expect(path.indexOf("4155550132")).toBe(597);
    const masked = maskedPath(path);
    expect(masked).toMatch(/\[cut\]$/);
    expect(masked).not.toMatch(/415/);
    expect(maskedPath(`/${"x".repeat(590)}/chef@exam${"ple".repeat(10)}.com`)).not.toContain("chef@");
    // The same path that ends before the cut keeps its last word whole.
    expect(maskedPath(`/${emails}/tail`)).toMatch(/\/tail$/);
  });
});
