// zod/mini: the same zod 4 engine in a tree-shakable form. This schema ships to
// the browser with the sign-up form, and the full API would triple its weight.
import * as z from "zod/mini";
import { signupFields, signupMessages } from "./signup-content";

const m = signupMessages.invalid;

/** Digits, spaces, dots, dashes, brackets and a leading +; 10 to 15 digits (E.164's ceiling). */
function looksLikePhoneNumber(value: string) {
  const digits = value.replace(/\D/g, "").length;
  return /^\+?[\d\s().-]+$/.test(value) && digits >= 10 && digits <= 15;
}

/** The sign-up form's rules, run by react-hook-form in the browser and again by the server. */
export const signupSchema = z.object({
  name: z.string().check(
    z.trim(),
    z.minLength(2, { error: m.name }),
    z.maxLength(signupFields.name.maxLength, { error: m.nameTooLong }),
  ),
  phone: z.string().check(
    z.trim(),
    z.minLength(10, { error: m.phone }),
    z.maxLength(signupFields.phone.maxLength, { error: m.phone }),
    z.refine(looksLikePhoneNumber, { error: m.phone }),
  ),
  consent: z.boolean().check(z.refine((agreed) => agreed, { error: m.consent })),
});

export type SignupInput = z.input<typeof signupSchema>;
export type Signup = z.output<typeof signupSchema>;
