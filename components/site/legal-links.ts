/** Where the SMS program's terms and the privacy policy live, as the footer and the sign-up form link them. */
export const legalLinks = {
  terms: { href: "/terms", label: "SMS Terms" },
  privacy: { href: "/privacy", label: "Privacy Policy" },
} as const;
