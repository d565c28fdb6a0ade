import { waitlistFields } from "@/lib/forms/waitlist";
import { expect, sameWithoutScripts, test } from "./fixtures";

const legal = [
  {
    path: "/terms",
    title: "SMS Terms",
    phrases: [
      "Reply STOP to any message to cancel",
      "Carriers are not liable for delayed or undelivered messages",
      "United States and Canada",
    ],
  },
  {
    path: "/privacy",
    title: "Privacy Policy",
    phrases: [
      "We do not share, sell or rent your mobile information to third parties or affiliates for their marketing",
      "1461 days",
      "IP address",
    ],
  },
];

for (const { path, title, phrases } of legal) {
  test(`${path} reads in full, dated, with a way back`, sameWithoutScripts, async ({ page }) => {
    await page.goto(path);
    const main = page.getByRole("main");
    await expect(main.getByRole("heading", { level: 1 })).toHaveText(title);
    await expect(main).toContainText("Effective November 24, 2026");
    for (const phrase of phrases) await expect(main).toContainText(phrase);
    // The default support email, as a link.
    await expect(main.getByRole("link", { name: "support@example.com" }).first()).toHaveAttribute(
      "href",
      "mailto:support@example.com",
    );
    await expect(main.getByRole("link", { name: "Back" })).toHaveAttribute("href", "/");
  });
}

for (const path of ["/", "/signup", "/terms", "/privacy"]) {
  test(`the footer on ${path} links the SMS Terms and the Privacy Policy`, async ({ page }) => {
    for (const [label, target] of [
      ["SMS Terms", "/terms"],
      ["Privacy Policy", "/privacy"],
    ] as const) {
      await page.goto(path);
      await page
        .getByRole("contentinfo")
        .getByRole("navigation", { name: "Legal" })
        .getByRole("link", { name: label })
        .click();
      await expect(page).toHaveURL(target);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(label);
    }
  });
}

test("beneath the consent text, a line links the SMS Terms and the Privacy Policy; the consent text is unchanged", async ({
  page,
}) => {
  await page.goto("/signup");
  const form = page.getByRole("main").locator("form");
  await expect(form.getByRole("checkbox")).toHaveAccessibleName(waitlistFields.consent.label);
  const terms = form.getByRole("link", { name: "SMS Terms" });
  const privacy = form.getByRole("link", { name: "Privacy Policy" });
  await expect(terms).toHaveAttribute("href", "/terms");
  await expect(privacy).toHaveAttribute("href", "/privacy");
  // Beneath the consent text, not inside its label: ticking the box stays one click on the words.
  const label = form.locator("label[for='waitlist-consent']");
  expect((await terms.boundingBox())!.y).toBeGreaterThan((await label.boundingBox())!.y);
  await expect(label.getByRole("link")).toHaveCount(0);
  await privacy.click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Privacy Policy");
});
