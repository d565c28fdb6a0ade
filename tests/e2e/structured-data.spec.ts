import { pricing } from "@/components/landing/landing-content";
import { expect, sameWithoutScripts, test } from "./fixtures";

type Offer = { name: string; price: string; priceCurrency: string; priceSpecification: { billingDuration: string } };

test(
  "the product's JSON-LD offers the three plans at the prices the page shows",
  sameWithoutScripts,
  async ({ page }) => {
    await page.goto("/");
    const data = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? "{}");
    expect(data["@context"]).toBe("https://schema.org");
    expect(data["@type"]).toBe("Product");

    const offers = data.offers as Offer[];
    const shown = await page
      .locator("#pricing ul")
      .first()
      .locator("> li")
      .evaluateAll((cards) =>
        cards.map((card) => ({
          name: card.querySelector("h3")?.textContent,
          price: card.textContent?.match(/\$(\d+)\/month/)?.[1],
        })),
      );
    expect(shown).toHaveLength(3);
    expect(offers.map((offer) => ({ name: offer.name, price: String(Number(offer.price)) }))).toEqual(shown);
    expect(offers.map((offer) => Number(offer.price))).toEqual(pricing.plans.map((plan) => plan.price));
    for (const offer of offers) {
      expect(offer.priceCurrency).toBe("USD");
      expect(offer.priceSpecification.billingDuration).toBe("P1M");
    }
  },
);
