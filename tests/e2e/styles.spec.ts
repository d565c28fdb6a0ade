import type { Page } from "@playwright/test";
import { errorContent } from "@/components/errors/error-content";
import { expect, test } from "./fixtures";
import { expectStyled } from "./styled";

/**
 * The stylesheet comes once per document, from the server rendering, and is
 * nowhere else (scripts/site-css.ts): these tests walk the site by its own
 * links and back, and reach the 404 page, checking each time that the page is
 * styled by it (the error boundaries: copy-site.server.spec.ts, where their
 * fixture is built).
 */
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

test("the 404 page is styled, and the home page it links to", async ({ page }) => {
  await page.goto("/no/such-page");
  await expectStyled(page, "404");
  await page.getByRole("link", { name: errorContent.home }).click();
  await expectStyled(page, "404 → home");
});
