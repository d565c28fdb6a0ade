import type { Metadata } from "next";
import { ClosingSection } from "@/components/landing/closing-section";
import { ContactSection } from "@/components/landing/contact-section";
import { contact } from "@/lib/forms/contact";
import { serveForm } from "@/server/forms/serve-form";
import { FeaturesSection } from "@/components/landing/features-section";
import { HeroSection } from "@/components/landing/hero-section";
import { PricingSection } from "@/components/landing/pricing-section";
import { ProblemSection } from "@/components/landing/problem-section";
import { ProductJsonLd } from "@/components/landing/product-json-ld";
import { SiteFooter } from "@/components/site/site-footer";
import { SiteHeader } from "@/components/site/site-header";
import { siteUrl } from "@/server/site-settings";

export const metadata: Metadata = {
  alternates: { canonical: "/" },
};

export default function HomePage() {
  return (
    <>
      <SiteHeader />
      <main id="main">
        <HeroSection />
        <ProblemSection />
        <FeaturesSection />
        <PricingSection />
        <ContactSection served={serveForm(contact)} />
        <ClosingSection />
      </main>
      <SiteFooter />
      <ProductJsonLd base={siteUrl()} />
    </>
  );
}
