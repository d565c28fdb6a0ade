import { brand } from "@/components/site/site-content";
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

/** The data as a script element; `base` is the site's public address, which the page reads from the server's env. */
export function ProductJsonLd({ base }: { base: URL }) {
  // "<" escaped so no string in the data can close the script element.
  const json = JSON.stringify(productJsonLd(base)).replace(/</g, "\\u003c");
  return <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: json }} />;
}
