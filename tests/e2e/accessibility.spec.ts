import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { untilHydrated } from "./hydration";

/**
 * axe runs as a script in the page, so it cannot run where JavaScript is off.
 * For that project it scans what such a visitor gets instead: the server's
 * HTML with every script taken out, in a browser that can still run axe.
 */
async function pageAsVisitorSees(page: Page, browser: Browser, jsEnabled: boolean, headers: Record<string, string>) {
  if (jsEnabled) return page;
  const context = await browser.newContext({ javaScriptEnabled: true, extraHTTPHeaders: headers });
  const scriptFree = await context.newPage();
  await scriptFree.route("**/*", async (route) => {
    const type = route.request().resourceType();
    if (type === "script") return route.abort();
    if (type !== "document") return route.continue();
    const response = await route.fetch();
    const body = (await response.text()).replace(/<script\b[\s\S]*?<\/script>/gi, "");
    return route.fulfill({ response, body });
  });
  return scriptFree;
}

/**
 * Sections below the first screen are laid out only when they near the viewport
 * (`content-visibility: auto` in app/globals.css). Until then each stands in at
 * 900 px while its content, laid out for axe's queries, runs past it over the
 * next section, and axe reads the colours of whatever it overlaps there. A
 * visitor who scrolls sees each section at its own size, and the page keeps
 * that size once seen: scrolling through once first shows axe the same page.
 */
async function scrollThrough(page: Page) {
  await page.evaluate(async () => {
    // Two frames, or 250 ms when the browser draws none: in CI's run of 10567a1
    // a js-on page under three workers went a minute without one, and the test
    // timed out inside this loop. Layout happens on the scroll either way.
    const twoFrames = () =>
      Promise.race([
        new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
        new Promise((done) => setTimeout(done, 250)),
      ]);
    for (let y = 0; y < document.documentElement.scrollHeight; y += window.innerHeight / 2) {
      window.scrollTo({ top: y, behavior: "instant" });
      await twoFrames();
    }
    window.scrollTo({ top: 0, behavior: "instant" });
    await twoFrames();
  });
}

/**
 * What axe found wrong, and the text whose contrast it could not measure. Text
 * on a gradient axe never measures: the hero's, and the header's logo over it.
 * Anything else it could not measure (text it took to be overlapped, say) is a
 * page it did not really check, so it counts against the page like a violation.
 */
async function violations(page: Page) {
  await scrollThrough(page);
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    .analyze();
  const unmeasured = results.incomplete
    .filter((result) => result.id === "color-contrast")
    .flatMap((result) => result.nodes)
    .filter((node) => !node.any.some((check) => check.data?.messageKey === "bgGradient"));
  return [
    ...results.violations.map((violation) => ({
      id: violation.id,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(" ")),
    })),
    ...(unmeasured.length
      ? [
          {
            id: "color-contrast unmeasured",
            help: [...new Set(unmeasured.flatMap((node) => node.any.map((check) => check.message)))].join("; "),
            targets: unmeasured.map((node) => node.target.join(" ")),
          },
        ]
      : []),
  ];
}

test.describe("axe", () => {
  // A scan of "/" takes 11-22 s in CI's runs here (the page scrolled through,
  // then axe over every node): half the default 30 s, and past it once on a
  // cold first test. The limit stops a hung test; it is not a timing goal.
  test.describe.configure({ timeout: 60_000 });
  let visitorPage: Page;
  test.beforeEach(async ({ page, browser, jsEnabled, extraHTTPHeaders }) => {
    visitorPage = await pageAsVisitorSees(page, browser, jsEnabled, extraHTTPHeaders ?? {});
  });

  for (const path of ["/", "/signup", "/terms", "/privacy", "/sent/waitlist", "/sent/contact", "/no-such-page"]) {
    test(`${path} has no violations`, async () => {
      await visitorPage.goto(path);
      expect(await violations(visitorPage)).toEqual([]);
    });
  }

  test("the sign-up form showing its errors has no violations", async ({ jsEnabled }) => {
    await visitorPage.goto("/signup");
    // The js-off visitor's page runs scripts but is served none (pageAsVisitorSees).
    if (jsEnabled) await untilHydrated(visitorPage.getByRole("main").locator("form"));
    await visitorPage.getByRole("button", { name: "Join Early Access" }).click();
    await expect(visitorPage.getByText("Name must be at least 2 characters")).toBeVisible();
    expect(await violations(visitorPage)).toEqual([]);
  });

  test("the same check finds faint text, and text it cannot measure, on a page made to have them", async () => {
    await visitorPage.goto("/");
    await visitorPage.addStyleTag({ content: "#contact-title { color: #d6d3d1 !important }" });
    await scrollThrough(visitorPage);
    // A grey box over half of the problem's title, where axe cannot tell the title's background.
    await visitorPage.evaluate(() => {
      const title = document.getElementById("problem-title")!.getBoundingClientRect();
      const cover = document.createElement("div");
      cover.style.cssText = `position:absolute;left:${title.left + window.scrollX}px;top:${title.top + window.scrollY}px;width:${title.width / 2}px;height:${title.height}px;background:rgba(0,0,0,.5)`;
      document.body.append(cover);
    });
    expect(await violations(visitorPage)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: "color-contrast", targets: ["#contact-title"] }),
        expect.objectContaining({
          id: "color-contrast unmeasured",
          targets: expect.arrayContaining(["#problem-title"]),
        }),
      ]),
    );
  });

  test("the open mobile menu has no violations", async () => {
    await visitorPage.setViewportSize({ width: 375, height: 740 });
    await visitorPage.goto("/");
    await visitorPage.getByRole("button", { name: "Menu" }).click();
    await expect(visitorPage.getByRole("navigation", { name: "Mobile" })).toBeVisible();
    expect(await violations(visitorPage)).toEqual([]);
  });
});

test("keyboard focus is visible on links, fields and buttons", async ({ page }) => {
  await page.goto("/signup");
  const targets = [
    page.getByRole("link", { name: "Back" }),
    page.getByLabel("Full Name", { exact: true }),
    page.getByRole("button", { name: "Join Early Access" }),
  ];
  for (const target of targets) {
    await target.focus();
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Tab");
    await expect(target).toBeFocused();
    await expect(target).toHaveCSS("outline-style", "solid");
    await expect(target).toHaveCSS("outline-width", "3px");
  }
});
