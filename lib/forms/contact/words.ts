import { sharedFields } from "../shared-fields";

/**
 * The contact form's words: the spec's labels, options and messages; the
 * length caps are ours, the browser's maxlength and the server's limit alike.
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
