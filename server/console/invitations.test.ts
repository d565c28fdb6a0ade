import { describe, expect, it } from "vitest";
import { isDownload } from "./downloads";
import { PLAN_MAX, selectionOf } from "./invitations";

describe("who a wave from the console is for", () => {
  it("the next N, 1 to 10,000, or everyone; the address keeps only that", () => {
    expect(selectionOf("next", "20")).toStrictEqual({
      valid: true,
      selection: { next: 20 },
      query: { plan: "next", next: "20" },
    });
    expect(selectionOf("next", "1").selection).toStrictEqual({ next: 1 });
    expect(selectionOf("next", String(PLAN_MAX)).selection).toStrictEqual({ next: 10_000 });
    expect(selectionOf("all", "abc")).toStrictEqual({ valid: true, selection: { all: true }, query: { plan: "all" } });
  });

  it("nothing else: no count, 0, past 10,000, a fraction, a sign, words, another plan", () => {
    for (const [plan, next] of [
      ["next", undefined],
      ["next", null],
      ["next", ""],
      ["next", "0"],
      ["next", "10001"],
      ["next", "99999"],
      ["next", "1.5"],
      ["next", "+5"],
      ["next", "-1"],
      ["next", " 5"],
      ["next", "five"],
      ["phones", "5"],
      [undefined, "5"],
      [null, "5"],
    ] as const)
      expect(selectionOf(plan, next), `${plan} ${next}`).toMatchObject({ valid: false, query: {} });
  });
});

describe("the console's downloads", () => {
  it("are the waitlist, the consent records and the invitations; nothing else, nor an object's own keys", () => {
    for (const name of ["waitlist", "consents", "invitations"]) expect(isDownload(name), name).toBe(true);
    for (const name of ["leads", "constructor", "toString", "__proto__", "", "waitlist.csv"])
      expect(isDownload(name), name).toBe(false);
  });
});
