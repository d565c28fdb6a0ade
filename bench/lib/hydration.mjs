import { chromium } from "@playwright/test";
import { chromeFlags, chromiumPath, durations } from "./config.mjs";

/**
 * When a phone's visitor gets a page they can use with JavaScript: each page
 * loaded in a fresh context under Lighthouse's applied throttling (its
 * mobileSlow4G: 562.5 ms request latency, 1,474.6 kbit/s down, 675 up; the CPU
 * 4x slower), timing in the page itself the largest contentful paint, when the
 * first script was asked for, and when React had hydrated: the menu button got
 * its aria-expanded (`/`), the sign-up's consent record its JavaScript flag
 * (`/signup`). The builds in turn, run after run; the median and the slowest.
 */
const hydratedSelector = 'button[aria-controls="mobile-menu"][aria-expanded], input[name="consentScript"][value="1"]';

function watch(selector) {
  const times = { lcp: 0, hydrated: 0 };
  Object.assign(window, { benchTimes: times });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) times.lcp = entry.startTime;
  }).observe({ type: "largest-contentful-paint", buffered: true });
  const check = () => {
    if (!times.hydrated && document.querySelector(selector)) times.hydrated = performance.now();
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true });
}

async function timeOnce(browser, url) {
  const context = await browser.newContext({
    viewport: { width: 412, height: 823 },
    deviceScaleFactor: 1.75,
    isMobile: true,
    hasTouch: true,
  });
  try {
    const page = await context.newPage();
    await page.addInitScript(watch, hydratedSelector);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 562.5,
      downloadThroughput: (1474.56 * 1024) / 8,
      uploadThroughput: (675 * 1024) / 8,
    });
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
    await page.goto(url, { waitUntil: "load", timeout: 60_000 });
    await page.waitForFunction(() => window.benchTimes.hydrated > 0, null, { timeout: 60_000, polling: 100 });
    return await page.evaluate(() => {
      const chunks = performance
        .getEntriesByType("resource")
        .filter((entry) => entry.name.includes("/_next/static/chunks/"))
        .map((entry) => entry.startTime);
      return {
        lcpMs: window.benchTimes.lcp,
        firstScriptMs: Math.min(...chunks),
        hydratedMs: window.benchTimes.hydrated,
      };
    });
  } finally {
    await context.close();
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** targets: [{ label, url }]. Returns one row per target: the median and slowest of each time, and every run. */
export async function timeHydration(targets) {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromeFlags });
  try {
    const runs = new Map(targets.map((target) => [target.label, []]));
    for (let round = 0; round < durations.lighthouseRuns; round += 1)
      for (const target of targets) runs.get(target.label).push(await timeOnce(browser, target.url));
    return targets.map(({ label }) => {
      const all = runs.get(label);
      const of = (key) => ({
        median: median(all.map((run) => run[key])),
        slowest: Math.max(...all.map((run) => run[key])),
      });
      return {
        label,
        runs: all.length,
        lcp: of("lcpMs"),
        firstScript: of("firstScriptMs"),
        hydrated: of("hydratedMs"),
        all,
      };
    });
  } finally {
    await browser.close();
  }
}
