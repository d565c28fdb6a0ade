import { Webhook } from "standardwebhooks";
import { invalidMessage } from "@/components/forms/form-messages";
import { contactMessages } from "@/lib/forms/contact";
import { e2e } from "./e2e-env";
import { expect, test } from "./fixtures";
import { ContactFormPage, type ContactInput } from "./pages/contact-form";
import { deliveriesNamed, deliveriesWith, uniqueToken } from "./receiver-client";
import { toasts } from "./toasts";

function request(name: string): ContactInput {
  return {
    name,
    // An address of its own: the contact form takes three requests a day per address.
    email: `julia.${uniqueToken("e")}@example.com`,
    phone: "(555) 123-4567",
    clientCount: "16-30",
    currentTools: "Spreadsheets and Venmo",
    // Kept as written, through the browser, the server's clean-up and the signed delivery: a chef with the joiner
    // that makes one emoji of two, one with a skin tone, and a Persian word with its non-joiner.
    message:
      "Invoices take my Sundays \u{1F468}\u200D\u{1F373} \u{1F469}\u{1F3FD}\u200D\u{1F373}, \u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645.",
  };
}

const empty: ContactInput = { name: "", email: "", phone: "", clientCount: "", currentTools: "", message: "" };

test("a contact request reaches the webhook and the visitor is thanked", async ({ page, jsEnabled }) => {
  const form = new ContactFormPage(page);
  const token = uniqueToken();
  // A slow webhook, so the busy state is there to see.
  const input = request(`Julia Child \u{1F469}\u200D\u{1F373} ${token} [delay=800]`);
  await form.open();
  await form.fill({ ...input, name: `  ${input.name}  ` });
  await form.submit.click();

  if (jsEnabled) {
    await expect(form.busy).toBeDisabled();
    const toast = toasts(page);
    await expect(toast).toHaveCount(1);
    await expect(toast).toContainText(contactMessages.success.title);
    await expect(toast).toContainText(contactMessages.success.text);
    // Where the visitor looks: the toast stands in the window, not at the top of the (contained) section.
    await expect(toast).toBeInViewport();
    await expect(form.status).toBeEmpty();
    await expect(form.submit).toBeEnabled();
    expect(await form.values()).toEqual(empty);
  } else {
    // Post/redirect/get: the result page, which a reload does not post again.
    await expect(form.status).toContainText(`${contactMessages.success.title} ${contactMessages.success.text}`);
    // The browser keeps the form's #contact across the redirect; the result page has nothing by that id.
    expect(new URL(page.url()).pathname).toBe("/sent/contact");
    await expect(form.status).toBeInViewport();
    await page.reload();
  }

  const [delivery, ...more] = await deliveriesNamed(token);
  expect(more).toEqual([]);
  expect(delivery?.path).toBe("/hooks/contact");
  expect(delivery?.headers["content-type"]).toBe("application/json");
  expect(delivery?.json).toEqual(input);
  // Signed with the contact form's secret, and carrying its fixed auth header.
  expect(
    new Webhook(e2e.webhookSecrets.contact).verify(delivery!.body, delivery!.headers as Record<string, string>),
  ).toStrictEqual(input);
  expect(delivery?.headers["x-e2e-key"]).toBe(e2e.authHeaderValues.contact);
});

test("a request sent from the top of the page is answered where the visitor can see it", async ({
  page,
  jsEnabled,
}) => {
  const form = new ContactFormPage(page);
  const token = uniqueToken();
  await form.open("/");
  await form.fill(request(`Julia Child ${token}`));
  await form.submit.click();

  // Without JavaScript the post ends on the form's result page (post/redirect/get): a reload posts nothing.
  const answer = jsEnabled ? toasts(page) : form.status;
  await expect(answer).toContainText(contactMessages.success.text);
  await expect(answer).toBeInViewport();
  if (!jsEnabled) {
    expect(new URL(page.url()).pathname).toBe("/sent/contact");
    await page.reload();
    await expect(form.status).toContainText(contactMessages.success.text);
  }
  expect(await deliveriesNamed(token)).toHaveLength(1);
});

test("when the webhook fails the visitor is told and keeps every value", async ({ page, jsEnabled }) => {
  const form = new ContactFormPage(page);
  const input = request(`Julia Child ${uniqueToken()} [status=500]`);
  await form.open();
  await form.fill(input);
  await form.submit.click();

  if (jsEnabled) {
    await expect(toasts(page)).toHaveCount(1);
    await expect(toasts(page)).toContainText(contactMessages.failure.title);
    await expect(toasts(page)).toContainText(contactMessages.failure.text);
    await expect(toasts(page)).toHaveAttribute("data-type", "error");
    // A second failure in a row is a second toast.
    await form.submit.click();
    await expect(toasts(page)).toHaveCount(2);
  } else {
    await expect(form.status).toContainText(`${contactMessages.failure.title} ${contactMessages.failure.text}`);
  }
  expect(await form.values()).toEqual(input);
});

test("the browser's own checks stop an incomplete request before it is sent", async ({ page, jsEnabled }) => {
  const form = new ContactFormPage(page);
  const token = uniqueToken();
  await form.open();
  await form.fill({ ...request(token), email: "not-an-email", clientCount: "1-5" });
  await form.submit.click();
  await expect(form.email).toHaveJSProperty("validity.valid", false);

  const input = request(token);
  await form.email.fill(input.email);
  await form.name.fill("");
  await form.submit.click();
  await expect(form.name).toHaveJSProperty("validity.valueMissing", true);
  expect(await page.evaluate(() => location.hash)).toBe("#contact");
  // The second try has no name to find it by; its email address is this test's own.
  expect([...(await deliveriesNamed(token)), ...(await deliveriesWith(input.email))]).toEqual([]);

  // The same form, completed, is sent: the receiver was there to see a wrong delivery.
  await form.name.fill(input.name);
  await form.submit.click();
  await expect(jsEnabled ? toasts(page) : form.status).toContainText(contactMessages.success.text);
  expect(await deliveriesWith(input.email)).toHaveLength(1);
});

test("the server re-checks what a browser lets through, and keeps the values", async ({ page, jsEnabled }) => {
  const form = new ContactFormPage(page);
  const token = uniqueToken();
  await form.open();
  // A browser that skips the native checks (an old one, or a script).
  await page.locator("#contact form").evaluate((element) => ((element as HTMLFormElement).noValidate = true));
  const input = { ...request(`Julia ${token}`), email: "julia@", clientCount: "30+" };
  await form.fill(input);
  await form.submit.click();

  await expect(form.email).toHaveAccessibleDescription(contactMessages.invalid.email);
  await expect(form.email).toHaveAttribute("aria-invalid", "true");
  if (jsEnabled) {
    await expect(toasts(page)).toContainText(invalidMessage.text);
  } else {
    // Not the delivery failure's words: nothing failed but the input.
    await expect(form.status).toContainText(`${invalidMessage.title} ${invalidMessage.text}`);
    await expect(form.status).not.toContainText(contactMessages.failure.text);
  }
  expect(await form.values()).toEqual(input);
  expect(await deliveriesNamed(token)).toEqual([]);

  // The same request with an address the server takes is sent.
  await form.email.fill(`julia.${token}@example.com`);
  await form.submit.click();
  await expect(jsEnabled ? toasts(page).last() : form.status).toContainText(contactMessages.success.text);
  expect(await deliveriesNamed(token)).toHaveLength(1);
});
