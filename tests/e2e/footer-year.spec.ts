import { expect, test } from "./fixtures";

for (const path of ["/", "/signup", "/terms", "/privacy"]) {
  test(`the footer on ${path} shows the current year, even on New Year's Day`, async ({ page, jsEnabled }) => {
    // A clock set to the first seconds of a year the build never saw.
    await page.clock.setFixedTime(new Date(2031, 0, 1, 0, 0, 5));
    const asked = Date.now();
    await page.goto(path);
    const footer = page.getByRole("contentinfo");
    if (jsEnabled) return await expect(footer).toContainText("© 2031 ");
    // Without JavaScript the server's own year stands: the year the pages were built, before this run began.
    const years = new Set([new Date(asked - 6 * 3_600_000).getFullYear(), new Date().getFullYear()]);
    await expect(footer).toContainText(new RegExp(`© (${[...years].join("|")}) `));
  });
}
