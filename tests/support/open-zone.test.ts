import { describe, expect, it } from "vitest";
import { canonicalPhone } from "@/lib/forms/phone";
import { zonesOf } from "@/server/invitations/quiet-hours";
import { candidates, closedPrefix, numberUnder, openPrefix, specCountries, splitHours } from "./open-zone";

/**
 * The browser specs run on a real clock, at any hour: the zones they pick
 * from must serve every minute of the year, and their numbers must be what
 * the site takes and maps to exactly that zone.
 */
describe("the specs' open zones", () => {
  it("give each candidate's numbers exactly its zone, and the waitlist takes them under specCountries", () => {
    const policy = { defaultCountry: "US" as const, countries: specCountries.split(",") as never };
    for (const { prefix, zone } of candidates) {
      const number = numberUnder(prefix, 123);
      expect(zonesOf(number).zones, number).toStrictEqual([zone]);
      expect(canonicalPhone(number, policy), number).toBe(number);
    }
  });

  it("find an open zone, a closed one and two zones split by narrower hours at every five minutes of a week in winter and one in summer", () => {
    const failures: string[] = [];
    const weeks = [Date.parse("2026-01-12T00:00:00Z"), Date.parse("2026-07-13T00:00:00Z")];
    const times = weeks.flatMap((start) => Array.from({ length: 7 * 288 }, (_, i) => start + i * 5 * 60_000));
    expect(times).toHaveLength(4_032);
    for (const at of times) {
      for (const [name, find] of [
        ["open", () => openPrefix(5, undefined, at)],
        ["closed", () => closedPrefix(5, undefined, at)],
        ["split", () => splitHours(10, at)],
      ] as const)
        try {
          find();
        } catch {
          failures.push(`${name} at ${new Date(at).toISOString()}`);
        }
    }
    expect(failures.slice(0, 5)).toStrictEqual([]);
  });
});
