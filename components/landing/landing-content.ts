/**
 * Every word of the landing page. Texts fixed by the spec (headings, buttons,
 * prices, plan features) are marked; the rest is free copy on the spec's themes.
 * Tests import these strings, so a copy change is a one-file change.
 */

export const hero = {
  eyebrow: "Early access for private chefs",
  title: "Run your chef business from the group chat.",
  lead: "Sous is an AI assistant that joins the text threads you already share with clients. It sends invoices, remembers every allergy and preference, plans menus and follows up, so your evenings go back to cooking.",
  primaryCta: { href: "/signup", label: "Sign Up For Early Access" }, // spec
  secondaryCta: { href: "#problem", label: "Learn More", context: "about the problem we solve" }, // spec
  stats: [
    { value: "8+", label: "hours saved" },
    { value: "2x", label: "faster payments" },
    { value: "0", label: "new apps" },
  ],
} as const;

export type ProblemIcon = "clock" | "sheet" | "messages" | "wallet";

export const problem = {
  id: "problem",
  eyebrow: "The problem",
  title: "You trained to cook, not to run an office",
  lead: "Private chefs spend their best hours on work nobody hired them for.",
  cards: [
    {
      icon: "clock",
      title: "Admin eats your evenings",
      body: "Invoices, confirmations and grocery math wait for you after every long service.",
    },
    {
      icon: "sheet",
      title: "Spreadsheet chaos",
      body: "Client notes, costs and schedules live in five spreadsheets, and none of them is current.",
    },
    {
      icon: "messages",
      title: "Lost in text threads",
      body: "Dates, headcounts and menu changes scroll out of sight across dozens of group chats.",
    },
    {
      icon: "wallet",
      title: "Slow payments",
      body: "You chase payments for weeks after the plates are cleared, one awkward reminder at a time.",
    },
  ] satisfies { icon: ProblemIcon; title: string; body: string }[],
  promise: {
    value: "10 hours",
    text: "Private chefs lose about 10 hours a week to admin. We give those hours back, guaranteed.",
  },
} as const;

export type FeatureIcon = "receipt" | "shield" | "heart" | "book" | "bell" | "layout";

export const features = {
  id: "features",
  eyebrow: "Features",
  title: "An assistant that already knows your clients",
  lead: "Everything a chef's back office does, handled in the conversations you already have.",
  cards: [
    {
      icon: "receipt",
      title: "Invoicing",
      body: "Say “invoice the Parkers for Saturday” and a clean invoice goes out by text. Clients pay instantly from their phone.",
    },
    {
      icon: "shield",
      title: "Allergy tracking",
      body: "Every allergy and intolerance is logged the moment a client mentions it and flagged on every menu you plan.",
    },
    {
      icon: "heart",
      title: "Preference memory",
      body: "Loves cilantro, no olives, anniversary in June. Your assistant remembers each household so you don't have to.",
    },
    {
      icon: "book",
      title: "Menu planning",
      body: "Draft weekly menus that respect every restriction, with shopping lists and food costs worked out.",
    },
    {
      icon: "bell",
      title: "Follow-ups and reminders",
      body: "Confirmations, deposit nudges and thank-you notes go out on time without you lifting a finger.",
    },
    {
      icon: "layout",
      title: "A simple web dashboard",
      body: "When you want a bigger screen, see your calendar, clients and messages in one calm place.",
    },
  ] satisfies { icon: FeatureIcon; title: string; body: string }[],
  panel: {
    title: "Text-Native by Design", // spec
    body: "No new app for you or your clients. Sous joins your existing group texts, answers in plain language and keeps working around the clock.",
    stats: [
      { value: "10+", label: "hours saved per week" },
      { value: "0", label: "new apps to learn" },
      { value: "24/7", label: "always on" },
    ],
  },
} as const;

export const pricing = {
  id: "pricing",
  eyebrow: "Pricing",
  title: "Flat monthly pricing",
  lead: "One flat monthly price, set by how many clients you serve. No setup fees, no contracts.",
  plans: [
    { name: "Up to 5 clients", price: 99, popular: false },
    { name: "6–15 clients", price: 199, popular: true },
    { name: "16–30 clients", price: 299, popular: false },
  ],
  period: "/month",
  popularLabel: "Most Popular", // spec
  planCta: { href: "/signup", label: "Sign Up" }, // spec
  includesTitle: "Every plan includes",
  includes: [
    "AI text assistant in group chats",
    "Web dashboard for calendar and clients",
    "Invoice and instant payment processing",
    "Menu planning and intelligence",
    "Allergy and preference tracking",
    "Automated follow-ups and reminders",
    "Client analytics",
    "Cost tracking and reporting",
    "Email and chat support",
    "Always-on assistance",
  ],
  noFee: {
    title: "0% transaction fees",
    body: "We never take a cut of your income. Your clients pay you, not us.",
  },
  custom: {
    text: "Serving more than 30 clients or running a team?",
    link: { href: "#contact", label: "Contact us for custom pricing" },
  },
} as const;

export const contact = {
  id: "contact",
  eyebrow: "Contact",
  title: "Ready to Save 10+ Hours a Week?", // spec
  lead: "Tell us about your business and we'll put together a custom quote.",
  cardTitle: "Get Started Today", // spec
  cardText: "Fill out the form and we'll respond within 24 hours.",
  nextTitle: "What Happens Next?", // spec
  nextSteps: [
    { title: "Quick Response", body: "We'll reach out within 24 hours to learn about your business." },
    { title: "Custom Demo", body: "We'll show you Sous working with your own menus, clients and schedule." },
    { title: "Simple Setup", body: "Guided onboarding has you running in minutes, not weeks." },
  ],
} as const;

export const closing = {
  title: "Cook More. Type Less.", // spec
  lead: "Join the early-access list and let Sous handle the business while you handle the food.",
  primaryCta: { href: "/signup", label: "Sign Up for Early Access" }, // spec
  secondaryCta: { href: "#contact", label: "Schedule Demo" }, // spec
} as const;
