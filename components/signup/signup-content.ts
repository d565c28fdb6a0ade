/** The words of the /signup page around its form; the form's own are in lib/forms/waitlist/words.ts. */
export const signupPage = {
  metaTitle: "Early Access Sign Up",
  metaDescription:
    "Join the early-access waitlist for Sous, the AI business assistant for private chefs. We'll text you when your spot opens.",
  back: { href: "/", label: "Back" },
  title: "Early Access Sign Up",
  description:
    "Join the waitlist and be among the first private chefs to hand their admin to Sous. We'll text you as soon as your spot opens.",
} as const;
