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

export const test = base.extend<Fixtures>({
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

/** The vertical position of an element's top edge relative to the viewport. */
export async function topOf(page: Page, selector: string) {
  return page.locator(selector).evaluate((element) => element.getBoundingClientRect().top);
}
