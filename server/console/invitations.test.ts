import { describe, expect, it, vi } from "vitest";
import { isDownload } from "./downloads";
import { PLAN_MAX, selectionOf, wavePreview } from "./invitations";

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

describe("a wave before Send", () => {
  it("shows the text with the site's link and a code's place, the pace, the hours and how long it takes", () => {
    vi.stubEnv("SITE_URL", "https://sous.example");
    vi.stubEnv("INVITE_PER_MINUTE", "60");
    vi.stubEnv("INVITE_HOURS", "10-19");
    expect(wavePreview(121)).toStrictEqual({
      text: "Sous: Your early-access spot is open! Get started at https://sous.example/i/xxxxxxxxxxxx Msg & data rates may apply. Reply STOP to cancel.",
      perMinute: 60,
      hours: { from: 10, to: 19 },
      minutes: 3,
    });
    expect(wavePreview(60).minutes).toBe(1);
    // Before the site's address is set, the text says which setting it waits for.
    vi.stubEnv("SITE_URL", "");
    expect(wavePreview(1).text).toContain(" https://your-site/i/xxxxxxxxxxxx ");
    vi.stubEnv("VERCEL_PROJECT_PRODUCTION_URL", "sous.vercel.app");
    expect(wavePreview(1).text).toContain(" https://sous.vercel.app/i/xxxxxxxxxxxx ");
  });
});

describe("the console's downloads", () => {
  it("are the waitlist, the consent records and the invitations; nothing else, nor an object's own keys", () => {
    for (const name of ["waitlist", "consents", "invitations"]) expect(isDownload(name), name).toBe(true);
    for (const name of ["leads", "constructor", "toString", "__proto__", "", "waitlist.csv"])
      expect(isDownload(name), name).toBe(false);
  });
});
