import * as z from "zod/mini";
import { canonicalPhone, type PhonePolicy } from "../phone";
import { trimmedText } from "../text";
import { waitlistFields as f, waitlistMessages } from "./words";

const m = waitlistMessages.invalid;

/** Digits, spaces, dots, dashes, brackets and a leading +; 10 to 15 digits (E.164's ceiling). */
function looksLikePhoneNumber(value: string) {
  const digits = value.replace(/\D/g, "").length;
  return /^\+?[\d\s().-]+$/.test(value) && digits >= 10 && digits <= 15;
}

/**
 * The sign-up rules, run by react-hook-form in the browser (loaded on first
 * focus) and again by the server. The phone number comes out in E.164
 * (+15551234567), and only when it is a possible number of an accepted country.
 */
export function waitlistSchema(policy: PhonePolicy) {
  return z.object({
    name: trimmedText(f.name.maxLength, m.nameTooLong).check(z.minLength(2, { error: m.name })),
    phone: z.pipe(
      trimmedText(f.phone.maxLength, m.phone).check(
        z.minLength(10, { error: m.phone }),
        z.refine(looksLikePhoneNumber, { error: m.phone }),
      ),
      // Parsed once: the same parse decides whether the number is accepted and gives its E.164 form.
      z.transform((text, context) => {
        const e164 = canonicalPhone(text, policy);
        if (e164) return e164;
        context.issues.push({ code: "custom", message: m.phone, input: text });
        return z.NEVER;
      }),
    ),
    consent: z.boolean().check(z.refine((agreed) => agreed, { error: m.consent })),
  });
}

export type WaitlistLead = z.output<ReturnType<typeof waitlistSchema>>;
