import type * as z from "zod/mini";
import { sharedFields } from "./shared-fields";
import { canonicalPhone } from "./phone";
import { trimmedText, type SchemaTools } from "./text";

/**
 * The waitlist form, shown on /signup: its fields, words and rules. Labels,
 * buttons and messages are the spec's.
 */

export const waitlistFields = {
  name: sharedFields.name,
  phone: sharedFields.phone,
  consent: {
    label:
      "I agree to receive recurring automated customer care and task reminder text messages from Sous at the phone number provided. Consent is not a condition of purchase. Message and data rates may apply. Message frequency varies. Reply STOP to cancel. Reply HELP for help.",
  },
} as const;

export type WaitlistValues = { name: string; phone: string; consent: boolean };

export const emptyWaitlistValues: WaitlistValues = { name: "", phone: "", consent: false };

export const waitlistMessages = {
  submit: "Join Early Access",
  busy: "Joining Waitlist...",
  success: {
    title: "Welcome to Early Access!",
    text: "You're on the waitlist! We'll notify you when the product's AI assistant is ready.",
  },
  failure: {
    title: "Error",
    text: "Something went wrong. Please try again.",
  },
  invalid: {
    name: "Name must be at least 2 characters",
    nameTooLong: "Name must be at most 100 characters",
    phone: "Please enter a valid phone number",
    consent: "You must agree to the terms to continue",
  },
} as const;

const m = waitlistMessages.invalid;
const f = waitlistFields;

/** Digits, spaces, dots, dashes, brackets and a leading +; 10 to 15 digits (E.164's ceiling). */
function looksLikePhoneNumber(value: string) {
  const digits = value.replace(/\D/g, "").length;
  return /^\+?[\d\s().-]+$/.test(value) && digits >= 10 && digits <= 15;
}

/**
 * The sign-up rules, built with the tools it is given (see SchemaTools): run
 * by react-hook-form in the browser, loaded on first focus, and again by the
 * server. The phone number comes out in E.164 (+15551234567), and only when it
 * is a possible number of an accepted country.
 */
export function waitlistSchema({ z, phone }: SchemaTools) {
  return z.object({
    name: trimmedText(z, f.name.maxLength, m.nameTooLong).check(z.minLength(2, { error: m.name })),
    phone: z.pipe(
      trimmedText(z, f.phone.maxLength, m.phone).check(
        z.minLength(10, { error: m.phone }),
        z.refine(looksLikePhoneNumber, { error: m.phone }),
      ),
      // Parsed once: the same parse decides whether the number is accepted and gives its E.164 form.
      z.transform((text, context) => {
        const e164 = canonicalPhone(text, phone.policy, phone.parse);
        if (e164) return e164;
        context.issues.push({ code: "custom", message: m.phone, input: text });
        return z.NEVER;
      }),
    ),
    consent: z.boolean().check(z.refine((agreed) => agreed, { error: m.consent })),
  });
}

export type WaitlistLead = z.output<ReturnType<typeof waitlistSchema>>;
