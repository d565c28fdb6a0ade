import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import type { Page } from "@playwright/test";
import { contactMessages } from "@/lib/forms/contact";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { e2e } from "./e2e-env";
import { expect, test } from "./fixtures";
import { ContactFormPage } from "./pages/contact-form";
import { SignupFormPage } from "./pages/signup-form";
import { deliveriesNamed, uniquePhone, uniqueToken } from "./receiver-client";
import { untilHydrated } from "./hydration";
import { toasts } from "./toasts";

// Each test runs the export command, a few seconds each on a loaded machine.
test.slow();

/** A form's export, as an operator runs it on this server's database: one object a row. */
async function exported(form: string) {
  const { stdout } = await promisify(execFile)(
    "npm",
    ["run", "--silent", "leads", "--", "export", "--form", form, "--format", "jsonl"],
    { env: { ...process.env, DATA_DIR: path.resolve(e2e.serverEnv.DATA_DIR) } },
  );
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown> & { payload: Record<string, string> });
}

async function signUp(page: Page, jsEnabled: boolean, name: string, phone: string) {
  const form = new SignupFormPage(page);
  await untilHydrated(form.main.locator("form"));
  await form.fill({ name, phone, consent: true });
  await form.submit.click();
  if (jsEnabled) await expect(toasts(page)).toContainText(waitlistMessages.success.title);
  else await expect(form.status).toContainText(waitlistMessages.success.title);
}

/** The webhook got the spec's body, field for field: nothing of where the visitor came from. */
async function expectSpecBody(token: string, keys: string[]) {
  const [delivery, ...more] = await deliveriesNamed(token);
  expect(more).toStrictEqual([]);
  expect(Object.keys(delivery!.json as object)).toStrictEqual(keys);
  expect(delivery!.body).not.toMatch(/instagram|google|newsletter|utm_|landing/);
}

test("a visitor from a campaign's link who follows the hero's link and signs up is that campaign's sign-up", async ({
  page,
  jsEnabled,
}) => {
  const token = uniqueToken();
  const phone = uniquePhone();
  await page.goto("/?utm_source=instagram&utm_medium=social&utm_campaign=spring-launch");
  await page.getByRole("link", { name: "Sign Up For Early Access", exact: true }).click();
  await expect(page).toHaveURL(/\/signup$/);
  await signUp(page, jsEnabled, `Ada ${token}`, phone.typed);

  await expectSpecBody(token, ["phone", "name"]);
  const row = (await exported("waitlist")).find((lead) => lead.payload.phone === phone.e164);
  expect(row).toMatchObject({
    source: "instagram",
    medium: "social",
    campaign: "spring-launch",
    referrer: null,
    landing_page: "/",
  });
});

test("a visitor sent by a search page who signs up on /signup has that site's host for a source", async ({
  page,
  jsEnabled,
}) => {
  const token = uniqueToken();
  const phone = uniquePhone();
  await page.goto("/signup", { referer: "https://www.google.com/" });
  await signUp(page, jsEnabled, `Grace ${token}`, phone.typed);

  await expectSpecBody(token, ["phone", "name"]);
  const row = (await exported("waitlist")).find((lead) => lead.payload.phone === phone.e164);
  expect(row).toMatchObject({
    source: "www.google.com",
    medium: null,
    campaign: null,
    referrer: "www.google.com",
    landing_page: "/signup",
  });
});

test("a quote request from a newsletter's link is that newsletter's; a visitor with no link nor referrer is direct", async ({
  page,
  browser,
  jsEnabled,
  extraHTTPHeaders,
}) => {
  const ask = async (visitor: Page, url: string, name: string) => {
    await visitor.goto(url);
    const form = new ContactFormPage(visitor);
    await untilHydrated(form.section.locator("form"));
    await form.fill({
      name,
      email: `${name.replace(/\W+/g, ".")}@example.com`,
      phone: "",
      clientCount: "6-15",
      currentTools: "",
      message: "",
    });
    await form.submit.click();
    await expect(jsEnabled ? toasts(visitor) : form.status).toContainText(contactMessages.success.title);
  };
  const token = uniqueToken();
  await ask(page, "/?utm_source=newsletter#contact", `Julia ${token}`);
  await expectSpecBody(token, ["name", "email", "phone", "clientCount", "currentTools", "message"]);

  const direct = await browser.newContext({ javaScriptEnabled: jsEnabled, baseURL: e2e.baseURL, extraHTTPHeaders });
  const other = uniqueToken();
  await ask(await direct.newPage(), "/#contact", `Julia ${other}`);
  await direct.close();

  const rows = await exported("contact");
  expect(rows.find((lead) => lead.payload.name === `Julia ${token}`)).toMatchObject({
    source: "newsletter",
    landing_page: "/",
  });
  expect(rows.find((lead) => lead.payload.name === `Julia ${other}`)).toMatchObject({
    source: "direct",
    referrer: null,
    landing_page: "/",
  });
});
