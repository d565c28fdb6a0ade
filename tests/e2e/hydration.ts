import { expect, type Locator, type Page } from "@playwright/test";

/** Whether the page runs scripts: a context with JavaScript off reports the `scripting` media feature as none. */
export function runsScripts(page: Page) {
  return page.evaluate(() => matchMedia("(scripting: enabled)").matches);
}

/**
 * On a page that runs scripts, waits until React has hydrated `element` (it
 * keeps its props on the node from then on). The pages hydrate late, after the
 * largest paint or the visitor's first press (decision 0010), so their load
 * event no longer waits for the scripts: a form sent before they ran goes
 * without JavaScript, which is the js-off project's path, not this one's. With
 * JavaScript off there is nothing to wait for.
 */
export async function untilHydrated(element: Locator) {
  if (!(await runsScripts(element.page()))) return;
  const hydrated = () => element.evaluate((node) => Object.keys(node).some((key) => key.startsWith("__reactProps$")));
  await expect.poll(hydrated, { message: "the page hydrated", timeout: 15_000 }).toBe(true);
}
