import { waitlistFields, waitlistMessages } from "@/lib/forms/waitlist";
import { signupPage } from "@/components/signup/signup-content";
import { expect, sameWithoutScripts, test } from "./fixtures";

test("the sign-up card has its texts and native, labelled fields", sameWithoutScripts, async ({ page }) => {
  await page.goto("/signup");
  await expect(page).toHaveTitle(/Early Access Sign Up/);
  const main = page.getByRole("main");
  await expect(main.getByRole("link", { name: "Back" })).toHaveAttribute("href", "/");
  await expect(main.getByRole("heading", { level: 1 })).toHaveText("Early Access Sign Up");
  // The spec's description names the waitlist: read on the page, not in the content module.
  await expect(main.getByText(signupPage.description)).toContainText("waitlist");

  const name = main.getByLabel("Full Name", { exact: true });
  await expect(name).toHaveAttribute("type", "text");
  const phone = main.getByLabel("Phone Number", { exact: true });
  await expect(phone).toHaveAttribute("type", "tel");
  await expect(phone).toHaveAttribute("placeholder", "(555) 123-4567");
  const consent = main.getByRole("checkbox");
  await expect(consent).not.toBeChecked();
  await expect(consent).toHaveAccessibleName(waitlistFields.consent.label);
  await expect(main.getByRole("button", { name: waitlistMessages.submit })).toHaveAttribute("type", "submit");
});

test("the consent text covers everything the carriers require", sameWithoutScripts, async ({ page }) => {
  await page.goto("/signup");
  const consentText = await page.locator("label[for='waitlist-consent']").textContent();
  for (const phrase of [
    "recurring automated customer care and task reminder text messages",
    "Consent is not a condition of purchase",
    "Message and data rates may apply",
    "Message frequency varies",
    "Reply STOP to cancel",
    "Reply HELP for help",
  ]) {
    expect(consentText).toContain(phrase);
  }
});

test("Back returns to the landing page", async ({ page }) => {
  await page.goto("/signup");
  await page.getByRole("link", { name: "Back" }).click();
  await expect(page).toHaveURL("/");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
});
