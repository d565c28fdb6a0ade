import type { Metadata } from "next";
import { privacyContent } from "@/components/legal/privacy-content";
import { LegalPage } from "@/components/legal/legal-page";
import { socialImage } from "@/components/site/site-content";
import { businessIdentity } from "@/server/env";

const { metaTitle, metaDescription } = privacyContent(businessIdentity());

export const metadata: Metadata = {
  title: metaTitle,
  description: metaDescription,
  alternates: { canonical: "/privacy" },
  // A page's openGraph replaces the layout's whole, so the cards are named again.
  openGraph: { title: metaTitle, description: metaDescription, url: "/privacy", images: [{ url: "/opengraph-image", ...socialImage }] },
  twitter: { card: "summary_large_image", title: metaTitle, description: metaDescription, images: [{ url: "/twitter-image", ...socialImage }] },
};

// Prerendered, and rebuilt hourly: the business's identity is read from the server's env when it renders.
export const revalidate = 3600;

export default function PrivacyPage() {
  const identity = businessIdentity();
  return <LegalPage document={privacyContent(identity)} identity={identity} />;
}
