import { createHash } from "node:crypto";
import path from "node:path";
import { waitlistFields, waitlistMessages } from "@/lib/forms/waitlist";
import { leadsTable } from "@/tests/support/lead-rows";
import { e2e } from "./e2e-env";
import { expect, test } from "./fixtures";
import { SignupFormPage } from "./pages/signup-form";
import { deliveriesNamed, uniquePhone, uniqueToken } from "./receiver-client";
import { toasts } from "./toasts";

/** The server's consent records for a number, read from its database as an operator would. */
async function recordsOf(phone: string) {
  // The server's own folder, made absolute: a wrong relative path would open an empty database and read [].
  const table = leadsTable({ dataDir: path.resolve(e2e.serverEnv.DATA_DIR) });
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

test("a sign-up leaves one consent record: the address, the browser, the page, how it was sent, and the words shown", async ({
  page,
  jsEnabled,
  extraHTTPHeaders,
}) => {
  const form = new SignupFormPage(page);
  const phone = uniquePhone();
  const token = uniqueToken();
  const before = Date.now();
  await signUp(form, jsEnabled, `Ada ${token}`, phone.typed);
  const after = Date.now();

  const userAgent = await page.evaluate(() => navigator.userAgent);
  const records = await recordsOf(phone.e164);
  expect(records).toStrictEqual([
    {
      id: expect.stringMatching(/^con_[0-9a-f-]{36}$/),
      consented_at: expect.any(Number),
      lead_id: expect.stringMatching(/^msg_/),
      // sha256 of the exact words shown, computed here apart from the server's code.
      disclosure_version: createHash("sha256").update(waitlistFields.consent.label).digest("hex"),
      phone: phone.e164,
      // The address the rate limiter counted: the one the proxy in front of the app reported.
      ip: extraHTTPHeaders!["x-forwarded-for"],
      user_agent: userAgent,
      page_url: `${e2e.baseURL}/signup`,
      javascript: jsEnabled ? 1 : 0,
      puts_in_force: 1,
      text: waitlistFields.consent.label,
    },
  ]);
  // Kept while the visitor's request was being answered, on the server's clock (the same machine's).
  expect(records[0]!.consented_at).toBeGreaterThanOrEqual(before);
  expect(records[0]!.consented_at).toBeLessThanOrEqual(after);
  const [delivery] = await deliveriesNamed(token);
  expect(records[0]!.lead_id).toBe(delivery?.headers["webhook-id"]);
  expect(delivery?.body).toBe(JSON.stringify({ phone: phone.e164, name: `Ada ${token}` }));
});

test("a sign-up refused for its missing consent leaves no record; ticked, the same sign-up leaves one", async ({
  page,
  jsEnabled,
}) => {
  const form = new SignupFormPage(page);
  const phone = uniquePhone();
  const name = `Ada ${uniqueToken()}`;
  await form.open();
  await form.fill({ name, phone: phone.typed, consent: false });
  await form.submit.click();
  await expect(form.main.getByText(waitlistMessages.invalid.consent)).toBeVisible();
  expect(await recordsOf(phone.e164)).toStrictEqual([]);

  await signUp(form, jsEnabled, name, phone.typed);
  expect(await recordsOf(phone.e164)).toHaveLength(1);
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
