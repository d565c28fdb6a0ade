import { expect, test } from "./fixtures";

for (const path of ["/", "/signup", "/terms", "/privacy"]) {
  test(`the footer on ${path} shows the current year, even on New Year's Day`, async ({ page, jsEnabled }) => {
    // A clock set to the first seconds of a year the build never saw.
    await page.clock.setFixedTime(new Date(2031, 0, 1, 0, 0, 5));
    await page.goto(path);
    const footer = page.getByRole("contentinfo");
    // Without JavaScript the server's own (hourly revalidated) year stands.
    const expected = jsEnabled ? 2031 : new Date().getFullYear();
    await expect(footer).toContainText(`© ${expected} `);
  });
}
