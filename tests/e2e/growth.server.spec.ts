import { setUpFirstOwner } from "../support/console-browser";
import { testDatabase } from "../support/lead-rows";
import { startConsoleSite } from "../support/next-server";
import { serverSpecBrowser } from "./e2e-env";
import { expect, test } from "./fixtures";

test.use({ ...serverSpecBrowser, javaScriptEnabled: false });

const DAY_MS = 86_400_000;

test("the overview reads today, this week and last week in the business's time zone, beside the span before each, and sign-ups per day as bars, 30 days unless asked", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const { dataDir, site, setupToken, stop } = await startConsoleSite("growth", {
    BUSINESS_TIME_ZONE: "America/New_York",
  });
  const context = await browser.newContext({ javaScriptEnabled: true });
  try {
    const page = await setUpFirstOwner(context, site, setupToken);
    // Numbers first signed up on known days: two a second ago, three a week ago to the hour.
    const now = Date.now();
    const db = testDatabase({ dataDir });
    try {
      const signedUp = [now - 1_000, now - 1_000, now - 7 * DAY_MS, now - 7 * DAY_MS, now - 7 * DAY_MS];
      await db
        .insertInto("consent_standings")
        .values(
          signedUp.map((at, i) => ({
            phone: `+1415555016${i}`,
            first_at: at,
            first_id: `con_growth_${i}`,
            state: "in force" as const,
          })),
        )
        .execute();
    } finally {
      await db.destroy();
    }

    await page.goto(`${site}/console`);
    // Titled as every console page is; its sections laid out whole, not as the marketing pages' below the fold.
    await expect(page).toHaveTitle("Overview | Sous console");
    const later = page.locator("main > section").nth(1);
    expect(await later.evaluate((section) => getComputedStyle(section).contentVisibility)).toBe("visible");
    const card = (label: string) => page.locator("dt", { hasText: label }).locator("xpath=..");
    await expect(card("Today").locator("dd")).toHaveText(["2", "+2 on yesterday (0)"]);
    await expect(card("This week").locator("dd")).toHaveText(["2", "−1 on last week by this day (3)"]);
    await expect(card("Last week").locator("dd")).toHaveText(["3", "+3 on the week before (0)"]);

    // The chart's numbers: 30 days in New York's calendar, today last, each day once, the empty ones 0.
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York" }).format(now);
    const weekAgo = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York" }).format(now - 7 * DAY_MS);
    await page.getByText("The numbers, day by day").click();
    const rows = page
      .getByRole("table", { name: /^Sign-ups per day in America\/New_York, the last 30 days$/ })
      .locator("tbody tr");
    await expect(rows).toHaveCount(30);
    await expect(rows.last().locator("td")).toHaveText([today, "2"]);
    await expect(rows.filter({ hasText: weekAgo }).locator("td")).toHaveText([weekAgo, "3"]);
    await expect(page.locator("figure svg rect")).toHaveCount(30);
    await expect(page.getByRole("link", { name: "Last 30 days" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("link", { name: "Last 7 days" })).toHaveAttribute("href", "/console?days=7");
    await page.goto(`${site}/console?days=7`);
    await page.getByText("The numbers, day by day").click();
    await expect(page.getByRole("table", { name: /the last 7 days$/ }).locator("tbody tr")).toHaveCount(7);

    // The operator's own zone, kept for them: the business's until they choose.
    const zone = page.getByLabel("Your time zone (days and weeks)");
    await expect(zone).toHaveValue("America/New_York");
    await zone.selectOption("Pacific/Kiritimati");
    await page.getByRole("button", { name: "Keep it" }).click();
    await expect(page).toHaveURL(`${site}/console`);
    await expect(zone).toHaveValue("Pacific/Kiritimati");
    await page.getByText("The numbers, day by day").click();
    const kiritimati = new Intl.DateTimeFormat("en-CA", { timeZone: "Pacific/Kiritimati" }).format(Date.now());
    await expect(
      page
        .getByRole("table", { name: "Sign-ups per day in Pacific/Kiritimati, the last 30 days" })
        .locator("tbody tr")
        .last()
        .locator("td")
        .first(),
    ).toHaveText(kiritimati);
    // A zone the server does not know changes nothing, and says so.
    const refused = await context.request.post(`${site}/console/time-zone`, {
      form: { zone: "Mars/Olympus_Mons" },
      headers: { Origin: site },
    });
    expect(new URL(refused.url()).search).toBe("?done=unknown-zone");
    await page.goto(refused.url());
    await expect(page.getByRole("main").getByRole("alert")).toHaveText("That is not a time zone this server knows.");
    await expect(zone).toHaveValue("Pacific/Kiritimati");
  } finally {
    await context.close();
    await stop();
  }
});
