import type { Metadata } from "next";
import { termsContent } from "@/components/legal/terms-content";
import { LegalPage } from "@/components/legal/legal-page";
import { socialImage } from "@/components/site/site-content";
import { businessIdentity } from "@/server/env";

const { metaTitle, metaDescription } = termsContent(businessIdentity());

export const metadata: Metadata = {
  title: metaTitle,
  description: metaDescription,
  alternates: { canonical: "/terms" },
  // A page's openGraph replaces the layout's whole, so the cards are named again.
  openGraph: { title: metaTitle, description: metaDescription, url: "/terms", images: [{ url: "/opengraph-image", ...socialImage }] },
  twitter: { card: "summary_large_image", title: metaTitle, description: metaDescription, images: [{ url: "/twitter-image", ...socialImage }] },
};

// Prerendered, and rebuilt hourly: the business's identity is read from the server's env when it renders.
export const revalidate = 3600;

export default function TermsPage() {
  const identity = businessIdentity();
  return <LegalPage document={termsContent(identity)} identity={identity} />;
}
