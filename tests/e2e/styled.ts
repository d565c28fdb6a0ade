import { expect, type Page } from "@playwright/test";

/**
 * That the page is styled by the site's stylesheet, which comes once per
 * document, from the server rendering, and is nowhere else (scripts/site-css.ts).
 */
export async function expectStyled(page: Page, where: string) {
  await expect(page.locator("style#site-css"), where).toHaveCount(1);
  await expect(page.locator('link[rel="stylesheet"]'), where).toHaveCount(0);
  const looks = await page.evaluate(() => {
    const root = getComputedStyle(document.documentElement);
    const body = getComputedStyle(document.body);
    return {
      marker: root.getPropertyValue("--sous-stylesheet").trim(),
      background: body.backgroundColor,
      font: body.fontFamily,
      margin: body.margin,
    };
  });
  // The cream background and the system UI stack are the site's own; Preflight zeroes the margin.
  expect(looks, where).toEqual({
    marker: "1",
    background: "rgb(251, 248, 243)",
    font: expect.stringMatching(/^system-ui, -apple-system, "Segoe UI", Roboto,/),
    margin: "0px",
  });
}
