import { waitlistFields, waitlistMessages } from "@/lib/forms/waitlist";
import { leadsTable } from "@/tests/support/lead-rows";
import { e2e } from "./e2e-env";
import { expect, test } from "./fixtures";
import { SignupFormPage } from "./pages/signup-form";
import { deliveriesNamed, uniquePhone, uniqueToken } from "./receiver-client";
import { toasts } from "./toasts";

/** The server's consent records for a number, read from its database as an operator would. */
async function recordsOf(phone: string) {
  const table = leadsTable({ dataDir: e2e.serverEnv.DATA_DIR });
  try {
    return await table.db
      .selectFrom("consents")
      .innerJoin("disclosures", "disclosures.version", "consents.disclosure_version")
      .selectAll("consents")
      .select("disclosures.text")
      .where("phone", "=", phone)
      .execute();
  } finally {
    await table.close();
  }
}

async function signUp(form: SignupFormPage, jsEnabled: boolean, name: string, phone: string) {
  await form.open();
  await form.fill({ name, phone, consent: true });
  await form.submit.click();
  if (jsEnabled) await expect(toasts(form.page)).toContainText(waitlistMessages.success.title);
  else await expect(form.status).toContainText(waitlistMessages.success.title);
}

test("a sign-up leaves one consent record: the address, the browser, the page, how it was sent, and the words shown", async ({ page, jsEnabled, extraHTTPHeaders }) => {
  const form = new SignupFormPage(page);
  const phone = uniquePhone();
  const token = uniqueToken();
  await signUp(form, jsEnabled, `Ada ${token}`, phone.typed);

  const userAgent = await page.evaluate(() => navigator.userAgent);
  const records = await recordsOf(phone.e164);
  expect(records).toStrictEqual([
    expect.objectContaining({
      phone: phone.e164,
      // The address the rate limiter counted: the one the proxy in front of the app reported.
      ip: extraHTTPHeaders!["x-forwarded-for"],
      user_agent: userAgent,
      page_url: `${e2e.baseURL}/signup`,
      javascript: jsEnabled ? 1 : 0,
      text: waitlistFields.consent.label,
    }),
  ]);
  const [delivery] = await deliveriesNamed(token);
  expect(records[0]!.lead_id).toBe(delivery?.headers["webhook-id"]);
  expect(delivery?.body).toBe(JSON.stringify({ phone: phone.e164, name: `Ada ${token}` }));
});

test("a sign-up refused for its missing consent leaves no record", async ({ page }) => {
  const form = new SignupFormPage(page);
  const phone = uniquePhone();
  await form.open();
  await form.fill({ name: `Ada ${uniqueToken()}`, phone: phone.typed, consent: false });
  await form.submit.click();
  await expect(form.main.getByText(waitlistMessages.invalid.consent)).toBeVisible();
  expect(await recordsOf(phone.e164)).toStrictEqual([]);
});

test("a sign-up the workflow fails on still leaves its record", async ({ page, jsEnabled }) => {
  const form = new SignupFormPage(page);
  const phone = uniquePhone();
  await form.open();
  await form.fill({ name: `Ada ${uniqueToken()} [status=503]`, phone: phone.typed, consent: true });
  await form.submit.click();
  if (jsEnabled) await expect(toasts(page)).toContainText(waitlistMessages.failure.text);
  else await expect(form.status).toContainText(waitlistMessages.failure.text);
  expect(await recordsOf(phone.e164)).toHaveLength(1);
});
