import { contactFields, contactMessages } from "@/lib/forms/contact";
import { closing, contact, features, hero, pricing, problem } from "@/components/landing/landing-content";
import { brand, navLinks } from "@/components/site/site-content";
import { defaultStudioCredit } from "@/lib/studio";
import { expect, sameWithoutScripts, test } from "./fixtures";

test.beforeEach(async ({ page }) => {
  await page.goto("/");
});

test("the sections come in the spec's order", sameWithoutScripts, async ({ page }) => {
  const sections = page.locator("main > section");
  const titles = await sections.evaluateAll((list) =>
    list.map((section) => document.getElementById(section.getAttribute("aria-labelledby") ?? "")?.textContent),
  );
  expect(titles).toEqual([hero.title, problem.title, features.title, pricing.title, contact.title, closing.title]);

  const ids = await page.locator("main > section[id]").evaluateAll((list) => list.map((section) => section.id));
  expect(ids).toEqual(["problem", "features", "pricing", "contact"]);
  await expect(page.locator("main + footer")).toBeVisible();
});

test(
  "problem and pricing are set apart in white on the cream page, and every section keeps its padding",
  sameWithoutScripts,
  async ({ page }) => {
    const looks = () =>
      page.locator("main > section[id]").evaluateAll((list) =>
        list.map((section) => {
          const style = getComputedStyle(section);
          return [section.id, style.backgroundColor, style.paddingTop, style.paddingBottom];
        }),
      );
    const white = "rgb(255, 255, 255)";
    const cream = "rgba(0, 0, 0, 0)"; // the page's own cream shows through
    // py-20 on a phone, sm:py-28 from 640 px up.
    for (const [width, padding] of [
      [375, "80px"],
      [1280, "112px"],
    ] as const) {
      await page.setViewportSize({ width, height: 800 });
      expect(await looks(), `${width} px wide`).toEqual([
        ["problem", white, padding, padding],
        ["features", cream, padding, padding],
        ["pricing", white, padding, padding],
        ["contact", cream, padding, padding],
      ]);
    }
  },
);

test("the fixed header links to every section and to sign-up", async ({ page }) => {
  const header = page.getByRole("banner");
  await expect(header).toHaveCSS("position", "fixed");
  const nav = header.getByRole("navigation", { name: "Main" });
  const links = nav.getByRole("link");
  await expect(links).toHaveText(navLinks.map((link) => link.label));
  for (const link of navLinks) {
    await expect(nav.getByRole("link", { name: link.label })).toHaveAttribute("href", link.href);
  }
  await expect(header.getByRole("link", { name: "Sign Up", exact: true })).toHaveAttribute("href", "/signup");
  await expect(header.getByRole("link", { name: brand.name })).toHaveAttribute("href", "/");

  await nav.getByRole("link", { name: "Pricing" }).click();
  await expect(page).toHaveURL(/#pricing$/);
  await expect(page.locator("#pricing")).toBeInViewport();
});

test("the hero sends visitors to sign-up or down to the problem", async ({ page }) => {
  const heroSection = page.getByRole("region", { name: hero.title });
  await expect(heroSection.getByRole("heading", { level: 1 })).toHaveText(hero.title);
  await expect(heroSection.getByRole("link", { name: "Sign Up For Early Access" })).toHaveAttribute("href", "/signup");
  const learnMore = heroSection.getByRole("link", { name: "Learn More" });
  await expect(learnMore).toHaveAttribute("href", "#problem");
  await learnMore.click();
  await expect(page.locator("#problem")).toBeInViewport();
});

test("problem and features show their cards and the text-native panel", sameWithoutScripts, async ({ page }) => {
  const problemCards = page.locator("#problem li");
  await expect(problemCards).toHaveCount(4);
  await expect(problemCards.locator("h3")).toHaveText(problem.cards.map((card) => card.title));

  const featureCards = page.locator("#features ul > li");
  await expect(featureCards).toHaveCount(6);
  await expect(featureCards.locator("h3")).toHaveText(features.cards.map((card) => card.title));
  await expect(page.locator("#features").getByRole("heading", { name: "Text-Native by Design" })).toBeVisible();
});

test(
  "pricing shows the three plans, what they include and no transaction fee",
  sameWithoutScripts,
  async ({ page }) => {
    const section = page.locator("#pricing");
    const plans = section.locator("ul").first().locator("> li");
    await expect(plans).toHaveCount(3);
    const expected = [
      { name: "Up to 5 clients", price: "$99", popular: false },
      { name: "6–15 clients", price: "$199", popular: true },
      { name: "16–30 clients", price: "$299", popular: false },
    ];
    for (const [index, plan] of expected.entries()) {
      const card = plans.nth(index);
      await expect(card.getByRole("heading")).toHaveText(plan.name);
      await expect(card).toContainText(`${plan.price}/month`);
      await expect(card.getByText("Most Popular")).toHaveCount(plan.popular ? 1 : 0);
      await expect(card.getByRole("link", { name: "Sign Up" })).toHaveAttribute("href", "/signup");
    }
    await expect(section.getByRole("listitem").filter({ hasNotText: "$" })).toHaveText(pricing.includes);
    await expect(section).toContainText("0% transaction fees");
    await expect(section).toContainText("Flat monthly pricing");
    await expect(section.getByRole("link", { name: pricing.custom.link.label })).toHaveAttribute("href", "#contact");
  },
);

test(
  "the contact section has every field with its label, type and required flag",
  sameWithoutScripts,
  async ({ page }) => {
    const section = page.locator("#contact");
    await expect(section.getByRole("heading", { level: 2 })).toHaveText("Ready to Save 10+ Hours a Week?");
    await expect(section.getByRole("heading", { name: "Get Started Today" })).toBeVisible();
    await expect(section).toContainText("24 hours");

    const fields = [
      { label: contactFields.name.label, tag: "input", type: "text", required: true },
      { label: contactFields.email.label, tag: "input", type: "email", required: true },
      { label: contactFields.phone.label, tag: "input", type: "tel", required: false },
      { label: contactFields.clientCount.label, tag: "select", type: null, required: true },
      { label: contactFields.currentTools.label, tag: "input", type: "text", required: false },
      { label: contactFields.message.label, tag: "textarea", type: null, required: false },
    ];
    for (const field of fields) {
      const control = section.getByLabel(field.label, { exact: true });
      await expect(control).toBeVisible();
      expect(await control.evaluate((element) => element.tagName.toLowerCase())).toBe(field.tag);
      if (field.type) await expect(control).toHaveAttribute("type", field.type);
      expect(await control.evaluate((element) => (element as HTMLInputElement).required)).toBe(field.required);
    }

    const options = section.getByLabel(contactFields.clientCount.label).locator("option:not([value=''])");
    await expect(options).toHaveText(["1-5 clients", "6-15 clients", "16-30 clients", "30+ clients"]);
    // The values the webhook receives, as the spec gives them.
    expect(await options.evaluateAll((list) => list.map((option) => (option as HTMLOptionElement).value))).toEqual([
      "1-5",
      "6-15",
      "16-30",
      "30+",
    ]);

    await expect(section.getByRole("button", { name: contactMessages.submit })).toHaveAttribute("type", "submit");

    const next = section.getByRole("complementary", { name: "What Happens Next?" });
    await expect(next.getByRole("heading", { level: 4 })).toHaveText(["Quick Response", "Custom Demo", "Simple Setup"]);
    await expect(next).toContainText("within 24 hours");
    await expect(next).toContainText("minutes");
  },
);

test("the closing call to action and the footer", async ({ page }) => {
  const closingSection = page.getByRole("region", { name: "Cook More. Type Less." });
  await expect(closingSection.getByRole("link", { name: "Sign Up for Early Access" })).toHaveAttribute(
    "href",
    "/signup",
  );
  const demo = closingSection.getByRole("link", { name: "Schedule Demo" });
  await expect(demo).toHaveAttribute("href", "#contact");
  await demo.click();
  await expect(page.locator("#contact")).toBeInViewport();

  await expect(page.getByRole("contentinfo")).toContainText(defaultStudioCredit);
});

test("every claim of the pitch appears as given", sameWithoutScripts, async ({ page }) => {
  const main = page.getByRole("main");
  const stats = await main
    .locator("dl > div")
    .evaluateAll((pairs) =>
      pairs.map((pair) => `${pair.querySelector("dd")?.textContent} ${pair.querySelector("dt")?.textContent}`),
    );
  expect(stats).toEqual(
    expect.arrayContaining([
      "8+ hours saved",
      "2x faster payments",
      "0 new apps",
      "10+ hours saved per week",
      "24/7 always on",
    ]),
  );
  await expect(main.locator("#problem")).toContainText(/lose about 10 hours a week.*back, guaranteed/);
  for (const claim of ["0% transaction fees", "Flat monthly pricing", "Ready to Save 10+ Hours a Week?"]) {
    await expect(main).toContainText(claim);
  }
});
