import { brand } from "@/components/site/site-content";
import { siteUrl } from "@/server/env";
import { pricing } from "./landing-content";

/** schema.org data for search engines: the product, with each plan as an offer. */
export function productJsonLd(base: URL) {
  return {
    "@context": "https://schema.org",
    "@type": "Product",
    name: brand.name,
    description: brand.description,
    category: "Business software",
    brand: { "@type": "Brand", name: brand.name },
    url: new URL("/", base).href,
    image: new URL("/opengraph-image", base).href,
    offers: pricing.plans.map((plan) => ({
      "@type": "Offer",
      name: plan.name,
      price: plan.price.toFixed(2),
      priceCurrency: "USD",
      availability: "https://schema.org/PreOrder",
      url: new URL("/signup", base).href,
      priceSpecification: {
        "@type": "UnitPriceSpecification",
        price: plan.price.toFixed(2),
        priceCurrency: "USD",
        billingDuration: "P1M",
        unitText: "month",
      },
    })),
  };
}

export function ProductJsonLd() {
  // "<" escaped so no string in the data can close the script element.
  const json = JSON.stringify(productJsonLd(siteUrl())).replace(/</g, "\\u003c");
  return <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: json }} />;
}
