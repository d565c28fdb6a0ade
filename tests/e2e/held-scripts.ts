import type { Page, Route } from "@playwright/test";

/**
 * Holds the page's scripts until release(): the page stays as the server sent it.
 * A page whose scripts are held opens with `untilParsed`, not at its load event:
 * when the browser reports the largest paint before that event, the loader adds
 * the (held) scripts first, and the load event then waits for them.
 */
export async function holdScripts(page: Page) {
  const held: Route[] = [];
  let released = false;
  await page.route("**/_next/static/chunks/**", async (route) => {
    if (released) await route.continue();
    else held.push(route);
  });
  return {
    requested: () => held.length,
    async release() {
      released = true;
      await Promise.all(held.map((route) => route.continue()));
    },
  };
}

export const untilParsed = { waitUntil: "domcontentloaded" } as const;
