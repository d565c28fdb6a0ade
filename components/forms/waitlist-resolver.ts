import { zodResolver } from "@hookform/resolvers/zod";
import { parsePhoneNumberFromString } from "libphonenumber-js/min";
import * as z from "zod/mini";
import type { PhonePolicy } from "@/lib/forms/phone";
import { waitlistSchema } from "@/lib/forms/waitlist";

let made: { key: string; resolver: ReturnType<typeof build> } | undefined;

function build(policy: PhonePolicy) {
  return zodResolver(waitlistSchema({ z, phone: { parse: parsePhoneNumberFromString, policy } }));
}

/**
 * Loaded on demand by the waitlist form: zod and the phone metadata stay out
 * of the page's first load. Made once for the page's phone policy.
 */
export function waitlistResolver(policy: PhonePolicy) {
  const key = JSON.stringify(policy);
  if (made?.key !== key) made = { key, resolver: build(policy) };
  return made.resolver;
}
