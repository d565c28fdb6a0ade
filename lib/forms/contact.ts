import type * as z from "zod/mini";
import { sharedFields } from "./shared-fields";
import { multiline, trimmedText, type SchemaTools } from "./text";

/**
 * The contact form: its fields, words and rules. Labels, options and messages
 * are the spec's; the length caps are ours, the browser's maxlength and the
 * server's limit alike.
 */

export const clientCountOptions = [
  { value: "1-5", label: "1-5 clients" },
  { value: "6-15", label: "6-15 clients" },
  { value: "16-30", label: "16-30 clients" },
  { value: "30+", label: "30+ clients" },
] as const;

export const contactFields = {
  name: sharedFields.name,
  email: { label: "Email Address", maxLength: 254, placeholder: "you@example.com" },
  phone: sharedFields.phone,
  clientCount: { label: "How many clients do you serve?", placeholder: "Select a range" },
  currentTools: {
    label: "What tools do you currently use?",
    maxLength: 300,
    placeholder: "Spreadsheets, Venmo, Google Calendar…",
  },
  message: {
    label: "Tell us about your biggest business challenge",
    maxLength: 3000,
    placeholder: "What takes up most of your time outside the kitchen?",
  },
} as const;

export type ContactValues = Record<keyof typeof contactFields, string>;

export const emptyContactValues: ContactValues = {
  name: "",
  email: "",
  phone: "",
  clientCount: "",
  currentTools: "",
  message: "",
};

export const contactMessages = {
  submit: "Get My Custom Quote",
  busy: "Sending...",
  success: {
    title: "Success!",
    text: "Thank you for your interest! We'll be contacting you shortly.",
  },
  failure: {
    title: "Error",
    text: "There was a problem submitting your form. Please try again.",
  },
  invalid: {
    name: "Please enter your name.",
    email: "Please enter a valid email address.",
    clientCount: "Please choose how many clients you serve.",
  },
} as const;

const m = contactMessages.invalid;
const f = contactFields;
const clientCounts = clientCountOptions.map((option) => option.value);

/**
 * The server's check of a contact request, built with the tools it is given
 * (see SchemaTools). The browser runs the same rules natively (required,
 * type="email", maxlength) without custom messages; these messages reach only
 * a visitor whose browser skipped them. The optional phone stays as typed.
 */
export function contactSchema({ z }: SchemaTools) {
  return z.object({
    name: trimmedText(z, f.name.maxLength).check(z.minLength(1, { error: m.name })),
    // The browser's own rule for type="email", so both sides accept the same addresses.
    email: trimmedText(z, f.email.maxLength).check(z.regex(z.regexes.html5Email, { error: m.email })),
    phone: trimmedText(z, f.phone.maxLength),
    clientCount: z.enum(clientCounts as [(typeof clientCounts)[number], ...typeof clientCounts], { error: m.clientCount }),
    currentTools: trimmedText(z, f.currentTools.maxLength),
    message: trimmedText(z, f.message.maxLength, undefined, multiline),
  });
}

export type ContactLead = z.output<ReturnType<typeof contactSchema>>;
