import { Webhook } from "standardwebhooks";
import { invalidMessage } from "@/components/forms/form-messages";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { e2e } from "./e2e-env";
import { expect, test } from "./fixtures";
import { SignupFormPage } from "./pages/signup-form";
import { deliveriesNamed, deliveriesWith, uniquePhone, uniqueToken } from "./receiver-client";
import { toasts } from "./toasts";

const m = waitlistMessages.invalid;

test("a sign-up reaches the waitlist webhook without the consent flag", async ({ page, jsEnabled }) => {
  const form = new SignupFormPage(page);
  const token = uniqueToken();
  const name = `Ada ${token} [delay=800]`;
  await form.open();
  const phone = uniquePhone();
  await form.fill({ name: ` ${name} `, phone: phone.typed, consent: true });
  await form.submit.click();

  if (jsEnabled) {
    await expect(form.busy).toBeDisabled();
    await expect(toasts(page)).toHaveCount(1);
    await expect(toasts(page)).toContainText(waitlistMessages.success.title);
    await expect(toasts(page)).toContainText(waitlistMessages.success.text);
    await expect(form.name).toHaveValue("");
    await expect(form.phone).toHaveValue("");
    await expect(form.consent).not.toBeChecked();
  } else {
    // Post/redirect/get: the post ends on the form's result page, and reloading it posts nothing.
    await expect(page).toHaveURL(/\/sent\/waitlist$/);
    await expect(form.status).toContainText(`${waitlistMessages.success.title} ${waitlistMessages.success.text}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(waitlistMessages.success.title);
    await page.reload();
    await expect(form.status).toContainText(waitlistMessages.success.title);
  }

  const deliveries = await deliveriesNamed(token);
  expect(deliveries).toHaveLength(1);
  expect(deliveries[0]?.path).toBe("/hooks/waitlist");
  // The number in E.164, as SMS tools want it.
  expect(deliveries[0]?.body).toBe(JSON.stringify({ phone: phone.e164, name }));
  // Signed with the waitlist's secret, and carrying its fixed auth header.
  expect(
    new Webhook(e2e.webhookSecrets.waitlist).verify(
      deliveries[0]!.body,
      deliveries[0]!.headers as Record<string, string>,
    ),
  ).toStrictEqual({ phone: phone.e164, name });
  expect(deliveries[0]?.headers["x-e2e-key"]).toBe(e2e.authHeaderValues.waitlist);
});

test("each rule has its message next to its field, and the first bad field gets focus", async ({ page, jsEnabled }) => {
  const form = new SignupFormPage(page);
  const token = uniqueToken();
  await form.open();
  await form.fill({ name: "A", phone: `555-${token}`, consent: false });
  await form.submit.click();

  await expect(form.main.getByText(m.name)).toBeVisible();
  await expect(form.main.getByText(m.phone)).toBeVisible();
  await expect(form.main.getByText(m.consent)).toBeVisible();
  await expect(form.name).toBeFocused();
  await expect(form.name).toHaveAttribute("aria-invalid", "true");
  await expect(form.name).toHaveAccessibleDescription(m.name);
  await expect(form.phone).toHaveAccessibleDescription(m.phone);
  await expect(form.consent).toHaveAccessibleDescription(m.consent);
  // What the visitor typed stays.
  await expect(form.name).toHaveValue("A");
  await expect(form.phone).toHaveValue(`555-${token}`);

  if (jsEnabled) {
    // After a submit, every change re-validates at once.
    await form.name.fill("Ada Lovelace");
    await expect(form.main.getByText(m.name)).toBeHidden();
    await expect(form.name).not.toHaveAttribute("aria-invalid");
    await expect(form.main.getByText(m.phone)).toBeVisible();
    await form.phone.fill("555 12");
    await expect(form.main.getByText(m.phone)).toBeVisible();
    await form.phone.fill("(555) 123-4567");
    await expect(form.main.getByText(m.phone)).toBeHidden();
    await form.submit.click();
    await expect(form.consent).toBeFocused();
    await expect(toasts(page)).toHaveCount(0);
  } else {
    // Not the delivery failure's words: nothing failed but the input.
    await expect(form.status).toContainText(`${invalidMessage.title} ${invalidMessage.text}`);
    await expect(form.status).not.toContainText(waitlistMessages.failure.text);
  }
  // The token is in the phone field: any delivery of this post carries it.
  expect(await deliveriesWith(token)).toEqual([]);

  // Completed, the same form is sent: the receiver was there to see a wrong delivery.
  await form.fill({ name: `Ada ${token}`, phone: uniquePhone().typed, consent: true });
  await form.submit.click();
  await expect(jsEnabled ? toasts(page).last() : form.status).toContainText(waitlistMessages.success.text);
  expect(await deliveriesNamed(token)).toHaveLength(1);
});

test("a name of one letter is refused even when everything else is right", async ({ page, jsEnabled }) => {
  const form = new SignupFormPage(page);
  const phone = uniquePhone();
  await form.open();
  await form.fill({ name: "Z", phone: phone.typed, consent: true });
  await form.submit.click();
  await expect(form.main.getByText(m.name)).toBeVisible();
  await expect(form.main.getByText(m.phone)).toHaveCount(0);
  await expect(form.consent).toBeChecked();
  // The number is this test's own: a delivery of this post would carry it, as typed or in E.164.
  expect([...(await deliveriesWith(phone.typed)), ...(await deliveriesWith(phone.e164))]).toEqual([]);

  // With a real name the same sign-up is sent, once.
  await form.name.fill("Zoe Lovelace");
  await form.submit.click();
  await expect(jsEnabled ? toasts(page).last() : form.status).toContainText(waitlistMessages.success.text);
  expect(await deliveriesWith(phone.e164)).toHaveLength(1);
});

test("when the waitlist webhook fails the visitor is told and keeps every value", async ({ page, jsEnabled }) => {
  const form = new SignupFormPage(page);
  const name = `Ada ${uniqueToken()} [status=503]`;
  await form.open();
  const phone = uniquePhone().e164.replace(/^\+1(\d{3})(\d{3})(\d{4})$/, "+1 $1 $2 $3");
  await form.fill({ name, phone, consent: true });
  await form.submit.click();

  if (jsEnabled) {
    await expect(toasts(page)).toHaveCount(1);
    await expect(toasts(page)).toContainText(waitlistMessages.failure.title);
    await expect(toasts(page)).toContainText(waitlistMessages.failure.text);
    await form.submit.click();
    await expect(toasts(page)).toHaveCount(2);
  } else {
    await expect(form.status).toContainText(`${waitlistMessages.failure.title} ${waitlistMessages.failure.text}`);
  }
  await expect(form.name).toHaveValue(name);
  await expect(form.phone).toHaveValue(phone);
  await expect(form.consent).toBeChecked();
});

test("a visitor who signs up too often is told to wait, and nothing more is sent", async ({ page, jsEnabled }) => {
  // Six posts in a row: beside CI's other line on two cores, they outlast one test's default 30 s.
  test.slow();
  const form = new SignupFormPage(page);
  await form.open();
  const token = uniqueToken();
  // Five sign-ups per address in ten minutes; each with its own number, never signed up before (a number is welcomed once).
  const exchange = jsEnabled ? 123 : 124;
  for (let i = 0; i <= 5; i += 1) {
    if (i > 0 && !jsEnabled) await form.open();
    await form.fill({ name: `Ada ${token} n${i}`, phone: `(555) ${exchange}-${String(4000 + i)}`, consent: true });
    await form.submit.click();
    // Success clears the form, or, without JavaScript, ends on the result page.
    if (i < 5 && jsEnabled) await expect(form.name).toHaveValue("");
    if (i < 5 && !jsEnabled) await expect(page).toHaveURL(/\/sent\/waitlist$/);
  }

  const refusal = jsEnabled ? toasts(page).filter({ hasText: "Too many attempts" }) : form.status;
  await expect(refusal).toContainText("Too many attempts");
  await expect(refusal).toContainText("Please try again in 10 minutes.");
  await expect(form.name).toHaveValue(`Ada ${token} n5`);
  expect(await deliveriesNamed(`${token} n5`)).toEqual([]);
  expect(await deliveriesNamed(token)).toHaveLength(5);
});
