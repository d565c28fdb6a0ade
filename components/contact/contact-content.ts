/**
 * The contact form's fields and messages. Labels, options and messages are the
 * spec's words; the length caps are ours, shared by the browser and the server.
 * No zod here: the landing page loads this module and stays light.
 */

export const clientCountOptions = [
  { value: "1-5", label: "1-5 clients" },
  { value: "6-15", label: "6-15 clients" },
  { value: "16-30", label: "16-30 clients" },
  { value: "30+", label: "30+ clients" },
] as const;

export const clientCountValues = clientCountOptions.map((option) => option.value) as [
  (typeof clientCountOptions)[number]["value"],
  ...(typeof clientCountOptions)[number]["value"][],
];

export const contactFields = {
  name: { label: "Full Name", maxLength: 100, placeholder: "Julia Child" },
  email: { label: "Email Address", maxLength: 254, placeholder: "you@example.com" },
  phone: { label: "Phone Number", maxLength: 30, placeholder: "(555) 123-4567" },
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
    tooLong: (max: number) => `Please use at most ${max.toLocaleString("en-US")} characters.`,
  },
} as const;
