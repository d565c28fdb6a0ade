/**
 * Copy shared by every page: the brand and the header links (the footer's credit is a setting, STUDIO_CREDIT).
 * The spec does not name the product, so its name lives here alone.
 */
export const brand = {
  name: "Sous",
  tagline: "The AI business assistant for private chefs",
  description:
    "Sous is an AI business assistant for private chefs. It joins your client group texts to handle invoicing, allergy tracking, menu planning and follow-ups.",
} as const;

/** The social card app/opengraph-image.tsx draws, shared by every page's metadata. */
export const socialImage = {
  alt: `${brand.name}: ${brand.tagline}`,
  width: 1200,
  height: 630,
} as const;

export const navLinks = [
  { href: "#problem", label: "Problem" },
  { href: "#features", label: "Features" },
  { href: "#pricing", label: "Pricing" },
  { href: "#contact", label: "Contact" },
] as const;

export const signUpLink = { href: "/signup", label: "Sign Up" } as const;
