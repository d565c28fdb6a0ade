import AxeBuilder from "@axe-core/playwright";
import type { Browser } from "@playwright/test";
import { contactMessages } from "@/lib/forms/contact";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { setUpFirstOwner } from "../support/console-browser";
import { testDatabase } from "../support/lead-rows";
import { startConsoleSite } from "../support/next-server";
import { serverSpecBrowser } from "./e2e-env";
import { expect, test } from "./fixtures";
import { untilHydrated } from "./hydration";
import { ContactFormPage } from "./pages/contact-form";
import { SignupFormPage } from "./pages/signup-form";
import { toasts } from "./toasts";

test.use({ ...serverSpecBrowser, javaScriptEnabled: true });

const campaign = "/?utm_source=instagram&utm_medium=social&utm_campaign=spring-launch";
const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36";

test("the Sources page counts visits, sign-ups and quote requests by source and campaign, with JavaScript on and off; bots, prefetches and HEADs count none, and no table holds who", async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const { dataDir, port, site, setupToken, stop } = await startConsoleSite("sources");
  const base = `http://127.0.0.1:${port}`;
  const visitor = async (javaScriptEnabled: boolean) =>
    // A person's browser says so; a headless one's agent is a bot's.
    (await (browser as Browser).newContext({ baseURL: base, javaScriptEnabled, userAgent: chrome })).newPage();
  try {
    // From the campaign, following the hero's link, with JavaScript on and off.
    for (const [i, javaScriptEnabled] of [true, false].entries()) {
      const page = await visitor(javaScriptEnabled);
      await page.goto(campaign);
      await page.getByRole("link", { name: "Sign Up For Early Access", exact: true }).click();
      await expect(page).toHaveURL(/\/signup$/);
      const form = new SignupFormPage(page);
      await untilHydrated(form.main.locator("form"));
      await form.fill({ name: `Ada Campaign ${i}`, phone: `(415) 555-018${i}`, consent: true });
      await form.submit.click();
      await expect(javaScriptEnabled ? toasts(page) : form.status).toContainText(waitlistMessages.success.title);
      await page.context().close();
    }
    // Sent by a search page, signing up where it landed.
    const searched = await visitor(false);
    await searched.goto("/signup", { referer: "https://www.google.com/search?q=private+chef+assistant" });
    const signup = new SignupFormPage(searched);
    await signup.fill({ name: "Grace Search", phone: "(415) 555-0183", consent: true });
    await signup.submit.click();
    await expect(signup.status).toContainText(waitlistMessages.success.title);
    await searched.context().close();
    // A quote request from a newsletter's link.
    const reader = await visitor(true);
    await reader.goto("/?utm_source=newsletter#contact");
    const contact = new ContactFormPage(reader);
    await untilHydrated(contact.section.locator("form"));
    await contact.fill({
      name: "Julia Newsletter",
      email: "julia.newsletter@example.com",
      phone: "",
      clientCount: "6-15",
      currentTools: "",
      message: "",
    });
    await contact.submit.click();
    await expect(toasts(reader)).toContainText(contactMessages.success.title);
    await reader.context().close();
    // Three more from the campaign, who leave.
    for (const javaScriptEnabled of [true, false, true]) {
      const page = await visitor(javaScriptEnabled);
      await page.goto(campaign);
      await page.context().close();
    }
    // What no one is: a crawler, a HEAD, a prefetch, a script; none is a visit.
    for (const [method, headers] of [
      ["GET", { "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" }],
      ["HEAD", { "user-agent": chrome }],
      ["GET", { "user-agent": chrome, "sec-purpose": "prefetch" }],
      ["GET", { "user-agent": chrome, purpose: "prefetch" }],
      ["GET", {}],
    ] as const)
      expect((await fetch(`${base}${campaign}`, { method, headers })).status).toBe(200);

    const owner = await setUpFirstOwner(await browser.newContext(), site, setupToken);
    await owner.getByRole("link", { name: "Where chefs come from" }).click();
    await expect(owner.getByRole("heading", { name: "Where chefs come from", level: 1 })).toBeVisible();
    const table = owner.getByRole("table", { name: "Visits, sign-ups and quote requests by source, the last 30 days" });
    await expect(table.getByRole("row")).toHaveText([
      "SourceVisitsSign-upsQuote requestsConversion",
      "instagram52040%",
      "campaign spring-launch52040%",
      "www.google.com110100%",
      "newsletter101100%",
    ]);
    const scanned = await new AxeBuilder({ page: owner })
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
      .analyze();
    expect(scanned.violations.map(({ id }) => id)).toStrictEqual([]);

    // The waitlist's row, and the chef's page, say where they came from.
    await owner.goto(`${site}/console/waitlist`);
    await expect(owner.getByRole("row").filter({ hasText: "+14155550181" }).getByRole("cell")).toHaveText([
      "+14155550181",
      "Ada Campaign 1",
      /^\d{4}-\d\d-\d\d /,
      "instagram, spring-launch",
      "in force",
      "waiting: no workflow connected",
      "not invited",
    ]);
    await expect(owner.getByRole("row").filter({ hasText: "+14155550183" })).toContainText("www.google.com");
    // Filtered by where they came from: the campaign's two, not the search's one.
    await owner.getByLabel("Source").selectOption("instagram");
    await owner.getByRole("button", { name: "Search", exact: true }).click();
    await expect(owner).toHaveURL(`${site}/console/waitlist?source=instagram`);
    await expect(owner.locator("tbody tr td:first-child")).toHaveText(["+14155550181", "+14155550180"]);
    await owner.getByRole("link", { name: "+14155550181" }).click();
    await expect(owner.getByText("instagram (social), campaign spring-launch, landed on /").first()).toBeVisible();

    // The counts hold no one: no address, agent, name or number.
    const db = testDatabase({ dataDir });
    try {
      const kept = JSON.stringify([
        await db.selectFrom("visits").selectAll().execute(),
        await db.selectFrom("lead_sources").selectAll().execute(),
      ]);
      // A number as typed or as kept ("555" alone turns up in ids and times by chance).
      for (const who of ["127.0.0.1", "Mozilla", "Chrome", "Ada", "Grace", "Julia", "555-01", "4155550", "q=private"])
        expect(kept, who).not.toContain(who);
    } finally {
      await db.destroy();
    }
  } finally {
    await stop();
  }
});
