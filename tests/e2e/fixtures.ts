import { test as base, expect, type Page } from "@playwright/test";

type Problems = {
  consoleErrors: string[];
  failedRequests: string[];
};

type Fixtures = {
  /** Whether this project runs the browser with JavaScript on. */
  jsEnabled: boolean;
  /** Console errors and failed requests seen by the page since the test began. */
  problems: Problems;
};

let addressCounter = 0;

export const test = base.extend<Fixtures>({
  // Each test is its own visitor: a client address of its own, as a proxy in
  // front of the app would report it, so rate limits only meet the tests about them.
  extraHTTPHeaders: async ({ extraHTTPHeaders }, use, testInfo) => {
    addressCounter += 1;
    const address = `10.${testInfo.workerIndex % 250}.${Math.floor(addressCounter / 250) % 250}.${(addressCounter % 250) + 1}`;
    await use({ ...extraHTTPHeaders, "x-forwarded-for": address });
  },
  jsEnabled: async ({ javaScriptEnabled }, use) => {
    await use(javaScriptEnabled ?? true);
  },
  problems: async ({ page, javaScriptEnabled }, use) => {
    const problems: Problems = { consoleErrors: [], failedRequests: [] };
    page.on("console", (message) => {
      if (message.type() === "error") problems.consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => problems.consoleErrors.push(error.message));
    page.on("requestfailed", (request) => {
      const reason = request.failure()?.errorText;
      // With JavaScript off, Chromium refuses script preloads and reports them as blocked by "csp".
      if (!javaScriptEnabled && request.resourceType() === "script" && reason === "csp") return;
      problems.failedRequests.push(`${request.url()} ${reason}`);
    });
    page.on("response", (response) => {
      if (response.status() >= 400) problems.failedRequests.push(`${response.url()} ${response.status()}`);
    });
    await use(problems);
  },
});

export { expect };

/**
 * For a test that only reads what the server sent (markup, text, styles, a
 * request's answer) and presses nothing: JavaScript changes none of it, so the
 * js-off project leaves it out (playwright.config.ts) and it runs once, with
 * JavaScript on. A test that clicks, types, navigates or lays out what differs
 * without scripts (a <noscript> note, a form's own path) runs both ways.
 */
export const sameWithoutScripts = { tag: "@same-without-js" } as const;

/** The vertical position of an element's top edge relative to the viewport. */
export async function topOf(page: Page, selector: string) {
  return page.locator(selector).evaluate((element) => element.getBoundingClientRect().top);
}
