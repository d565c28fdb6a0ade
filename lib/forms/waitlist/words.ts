import { sharedFields } from "../shared-fields";

/** The waitlist form's words, shown on /signup: the spec's labels, buttons and messages. */

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
