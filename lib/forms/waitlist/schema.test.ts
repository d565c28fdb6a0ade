import { describe, expect, it } from "vitest";
import { check } from "@/tests/support/check-schema";
import { waitlistSchema } from "./schema";
import { waitlistMessages } from "./words";

const northAmerica = { defaultCountry: "US", countries: ["US", "CA"] } as const;

const m = waitlistMessages.invalid;
// Built per call, as a test runs: what a schema is built with is what the test checks.
const signup = (fields: Partial<{ name: string; phone: string; consent: boolean }>) =>
  check(waitlistSchema(northAmerica), { name: "Ada Lovelace", phone: "(415) 555-0132", consent: true, ...fields });

describe("waitlistSchema", () => {
  it("keeps a valid sign-up with the phone in E.164 and the name trimmed", () => {
    expect(signup({ name: "  Ada  " })).toStrictEqual({
      ok: true,
      value: { name: "Ada", phone: "+14155550132", consent: true },
    });
  });

  it("answers each field with the spec's message", () => {
    expect(signup({ name: "A", phone: "12", consent: false })).toStrictEqual({
      ok: false,
      errors: { name: m.name, phone: m.phone, consent: m.consent },
    });
  });

  it("limits the name to 100 characters with its own message", () => {
    expect(signup({ name: "a".repeat(100) }).ok).toBe(true);
    expect(signup({ name: "a".repeat(101) })).toStrictEqual({ ok: false, errors: { name: m.nameTooLong } });
  });

  it("takes 10 to 15 digits written with spaces, dots, dashes, brackets and a leading +", () => {
    expect(signup({ phone: "+1 (415) 555-0132" }).ok).toBe(true);
    expect(signup({ phone: "415.555.0132" }).ok).toBe(true);
    for (const phone of [
      "415 555 013",
      "415-555-0132 ext 1",
      "415/555/0132",
      "+1 415 555 0132 1234 5",
      "++14155550132",
    ]) {
      expect(signup({ phone }), phone).toStrictEqual({ ok: false, errors: { phone: m.phone } });
    }
  });

  it("accepts 15 digits when the number is possible for an accepted country", () => {
    const anywhere = waitlistSchema({ defaultCountry: "US", countries: ["US", "CA", "DE"] });
    // A German number of 15 digits with its country code, E.164's ceiling; one more is too many.
    expect(check(anywhere, { name: "Ada", phone: "+49 1521 2345 67890", consent: true })).toMatchObject({ ok: true });
    expect(check(anywhere, { name: "Ada", phone: "+49 1521 2345 678901", consent: true })).toMatchObject({ ok: false });
  });

  it("refuses a well-formed number of a country outside the policy with the spec's message", () => {
    expect(signup({ phone: "+44 20 7946 0958" })).toStrictEqual({ ok: false, errors: { phone: m.phone } });
  });
});
