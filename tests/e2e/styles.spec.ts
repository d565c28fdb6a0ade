import type { Page } from "@playwright/test";
import { errorContent } from "@/components/errors/error-content";
import { expect, test } from "./fixtures";

/**
 * The stylesheet comes once per document, from the server rendering, and is
 * nowhere else (scripts/site-css.ts): these tests walk the site by its own
 * links and back, and reach the 404 page and the error boundaries, checking
 * each time that the page is styled by it.
 */
async function expectStyled(page: Page, where: string) {
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

/** The other pages the site's own links on this page lead to (fragments, this page and other sites left out). */
async function linkedPaths(page: Page) {
  const hrefs = await page
    .locator("a[href]")
    .evaluateAll((links) => links.map((link) => (link as HTMLAnchorElement).href));
  const here = new URL(page.url());
  const paths = hrefs.filter((href) => href.startsWith(here.origin)).map((href) => new URL(href).pathname);
  return [...new Set(paths)].filter((path) => path !== here.pathname).sort();
}

test("every page the site links to is styled, reached by its links and by going back", async ({ page, problems }) => {
  // Some forty navigations: the default 30 s ran out once on a loaded CI machine, with n8n starting beside it.
  test.setTimeout(120_000);
  const start = ["/", "/signup", "/terms", "/privacy"];
  const visited: string[] = [];
  for (const from of start) {
    await page.goto(from);
    await expectStyled(page, from);
    for (const path of await linkedPaths(page)) {
      await page.locator(`a[href="${path}"], a[href^="${path}#"]`).first().click();
      await expect(page).toHaveURL(new RegExp(`${path === "/" ? "/" : path}(#.*)?$`));
      await expectStyled(page, `${from} → ${path}`);
      await page.goBack();
      await expect(page).toHaveURL(new RegExp(`${from}$`));
      await expectStyled(page, `${from} → ${path} → back`);
      visited.push(`${from} → ${path}`);
    }
  }
  // The walk covered the pages the footer and the calls to action lead to.
  for (const path of start)
    expect(
      visited.some((step) => step.endsWith(`→ ${path}`)),
      path,
    ).toBe(true);
  // Requests a page had under way when the walk left it are aborted, so only the console is judged here (page-hygiene.spec.ts judges requests).
  expect(problems.consoleErrors).toEqual([]);
});

test("the 404 page and the error boundaries are styled", async ({ page, jsEnabled }) => {
  await page.goto("/no/such-page");
  await expectStyled(page, "404");
  await page.getByRole("link", { name: errorContent.home }).click();
  await expectStyled(page, "404 → home");

  await page.goto("/test-error");
  if (jsEnabled) {
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Unexpected Application Error!");
    await expectStyled(page, "server error, its boundary rendered in the browser");
  }
  await page.goto("/test-error?in=browser");
  if (jsEnabled) {
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Unexpected Application Error!");
    await expectStyled(page, "error thrown in the browser");
    await page.getByRole("button", { name: errorContent.retry }).click();
    await expectStyled(page, "after retry");
  } else {
    // Without JavaScript the page never fails (the throw comes after hydration): it is the page itself.
    await expectStyled(page, "/test-error?in=browser without JavaScript");
  }
});
