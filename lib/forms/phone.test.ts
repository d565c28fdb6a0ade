import { describe, expect, it } from "vitest";
import { canonicalPhone, type PhonePolicy } from "./phone";

const northAmerica: PhonePolicy = { defaultCountry: "US", countries: ["US", "CA"] };
const canonical = (text: string, policy = northAmerica) => canonicalPhone(text, policy);

describe("canonicalPhone", () => {
  it("gives every spelling of one number the same E.164 form", () => {
    for (const text of ["(415) 555-0132", "415.555.0132", "+1 415 555 0132", "1-415-555-0132"]) {
      expect(canonical(text)).toBe("+14155550132");
    }
  });

  it("counts a +1 number with no assigned country (the spec's placeholder) as North American", () => {
    expect(canonical("(555) 123-4567")).toBe("+15551234567");
  });

  it("refuses that number when neither the US nor Canada is accepted", () => {
    expect(canonical("(555) 123-4567", { defaultCountry: "US", countries: ["GB"] })).toBeUndefined();
    expect(canonical("+1 555 123 4567", { defaultCountry: "US", countries: ["CA"] })).toBe("+15551234567");
    expect(canonical("+1 555 123 4567", { defaultCountry: "US", countries: ["US"] })).toBe("+15551234567");
  });

  it("refuses numbers of countries outside the policy, and accepts them once listed", () => {
    expect(canonical("+44 20 7946 0958")).toBeUndefined();
    expect(canonical("+1 876 555 0100")).toBeUndefined(); // Jamaica shares calling code 1
    expect(canonical("+44 20 7946 0958", { defaultCountry: "US", countries: ["US", "GB"] })).toBe("+442079460958");
  });

  it("refuses a number of no country outside North America (international freephone)", () => {
    expect(canonical("+800 1234 5678")).toBeUndefined();
  });

  it("refuses what is not a possible number, and what does not parse at all", () => {
    expect(canonical("415 555 01")).toBeUndefined();
    expect(canonical("hello")).toBeUndefined();
    expect(canonical("")).toBeUndefined();
  });
});
