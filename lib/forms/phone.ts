import { parsePhoneNumberFromString as parse, type CountryCode } from "libphonenumber-js/min";

/**
 * Which phone numbers a form accepts: parsed as if dialled in `defaultCountry`, kept only when they belong to one of
 * `countries`. The server reads both from its env (PHONE_DEFAULT_COUNTRY, WAITLIST_PHONE_COUNTRIES); the page hands
 * them to the browser.
 */
export type PhonePolicy = { defaultCountry: CountryCode; countries: readonly CountryCode[] };

// The North American Numbering Plan shares calling code 1. A number with no assigned area code (the spec's own
// placeholder, (555) 123-4567) is possible but names no country; it counts as American or Canadian.
const nanpHomes: readonly CountryCode[] = ["US", "CA"];

/**
 * The number in E.164 (+15551234567), the form SMS tools require and the key the limits count by, or undefined when it
 * is not a possible number of an accepted country. Every spelling of one number gives the same result.
 */
export function canonicalPhone(text: string, policy: PhonePolicy): string | undefined {
  const number = parse(text, policy.defaultCountry);
  if (!number?.isPossible()) return undefined;
  const accepted = number.country
    ? policy.countries.includes(number.country)
    : number.countryCallingCode === "1" && nanpHomes.some((home) => policy.countries.includes(home));
  return accepted ? number.number : undefined;
}

/**
 * Any possible number, in E.164, whatever its country: how the operator's command and the workflow name a number whose
 * consent ends, typed in any spelling ("(555) 123-4567", "+1 555.123.4567").
 */
export function phoneOfAnySpelling(text: string, defaultCountry: CountryCode): string | undefined {
  const number = parse(text, defaultCountry);
  return number?.isPossible() ? number.number : undefined;
}
