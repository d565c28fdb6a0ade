/** Every word of the sign-up page. Labels, buttons and messages are the spec's. */
export const signupPage = {
  metaTitle: "Early Access Sign Up",
  metaDescription:
    "Join the early-access waitlist for Sous, the AI business assistant for private chefs. We'll text you when your spot opens.",
  back: { href: "/", label: "Back" },
  title: "Early Access Sign Up",
  description:
    "Join the waitlist and be among the first private chefs to hand their admin to Sous. We'll text you as soon as your spot opens.",
} as const;

export const signupFields = {
  name: { label: "Full Name", maxLength: 100, placeholder: "Julia Child" },
  phone: { label: "Phone Number", maxLength: 30, placeholder: "(555) 123-4567" },
  consent: {
    label:
      "I agree to receive recurring automated customer care and task reminder text messages from Sous at the phone number provided. Consent is not a condition of purchase. Message and data rates may apply. Message frequency varies. Reply STOP to cancel. Reply HELP for help.",
  },
} as const;

export const signupMessages = {
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

export const emptySignupValues = { name: "", phone: "", consent: false };
