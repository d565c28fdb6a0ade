import { describe, expect, it } from "vitest";
import { sendingTime, zonesOf } from "./quiet-hours";

const hours = { from: 9, to: 20 };
const at = (iso: string) => Date.parse(iso);

describe("zonesOf", () => {
  it("reads a number's zones from its area code, or a block of one", () => {
    expect(zonesOf("+12125550123")).toStrictEqual({ zones: ["America/New_York"], from: "prefix" });
    expect(zonesOf("+14155550123")).toStrictEqual({ zones: ["America/Los_Angeles"], from: "prefix" });
    expect(zonesOf("+18085550123").zones).toStrictEqual(["Pacific/Honolulu"]);
    // Newfoundland and Labrador: the map gives both of its zones.
    expect(zonesOf("+17095550123").zones).toStrictEqual(["America/Puerto_Rico", "America/St_Johns"]);
  });

  it("takes every zone of the region for an area code the map does not know, and every zone of +1 for a number of no region", () => {
    const canadian = zonesOf("+12735550123");
    expect(canadian.from).toBe("region");
    expect(canadian.zones).toEqual(
      expect.arrayContaining(["America/St_Johns", "America/Toronto", "America/Vancouver"]),
    );
    expect(canadian.zones).not.toContain("America/New_York");
    const nowhere = zonesOf("+15555550123");
    expect(nowhere.from).toBe("calling code");
    expect(nowhere.zones).toEqual(expect.arrayContaining(["Pacific/Guam", "Pacific/Pago_Pago", "America/New_York"]));
  });
});

describe("sendingTime", () => {
  it("is open from 9:00 up to 20:00 local, and says when it opens otherwise", () => {
    const newYork = ["America/New_York"];
    expect(sendingTime(newYork, at("2026-11-27T13:59:59Z"), hours)).toStrictEqual({
      open: false,
      opensAt: at("2026-11-27T14:00:00Z"),
    });
    expect(sendingTime(newYork, at("2026-11-27T14:00:00Z"), hours)).toStrictEqual({ open: true });
    expect(sendingTime(newYork, at("2026-11-28T00:59:59Z"), hours)).toStrictEqual({ open: true });
    expect(sendingTime(newYork, at("2026-11-28T01:00:00Z"), hours)).toStrictEqual({
      open: false,
      opensAt: at("2026-11-28T14:00:00Z"),
    });
    // Summer time moves it: 9:00 in New York is 13:00 UTC in July.
    expect(sendingTime(newYork, at("2026-07-01T12:30:00Z"), hours)).toStrictEqual({
      open: false,
      opensAt: at("2026-07-01T13:00:00Z"),
    });
  });

  it("opens for several zones only when every one is inside, on the quarter hour a half-hour zone needs", () => {
    // St. John's is 4.5 h ahead of Los Angeles in November: 9:00 in Los Angeles is 13:30 there.
    const zones = ["America/St_Johns", "America/Los_Angeles"];
    expect(sendingTime(zones, at("2026-11-27T12:30:00Z"), hours)).toStrictEqual({
      open: false,
      opensAt: at("2026-11-27T17:00:00Z"),
    });
    // 20:00 in St. John's closes it, 15:30 in Los Angeles.
    expect(sendingTime(zones, at("2026-11-27T23:29:00Z"), hours)).toStrictEqual({ open: true });
    expect(sendingTime(zones, at("2026-11-27T23:30:00Z"), hours)).toStrictEqual({
      open: false,
      opensAt: at("2026-11-28T17:00:00Z"),
    });
    expect(sendingTime(["America/St_Johns"], at("2026-11-27T12:00:00Z"), hours)).toStrictEqual({
      open: false,
      opensAt: at("2026-11-27T12:30:00Z"),
    });
  });

  it("never opens for zones that share no hour, nor for none", () => {
    // Guam and Honolulu are 20 hours apart: no hour is 9:00-12:00 in both.
    expect(
      sendingTime(["Pacific/Guam", "Pacific/Honolulu"], at("2026-11-27T12:00:00Z"), { from: 9, to: 12 }),
    ).toStrictEqual({ open: false, opensAt: undefined });
    expect(sendingTime([], at("2026-11-27T18:00:00Z"), hours)).toStrictEqual({ open: false, opensAt: undefined });
  });
});
