import { mkdir } from "node:fs/promises";
import { chromium } from "@playwright/test";
import { chromiumPath, paths } from "./config.mjs";

/**
 * The two visits a screenshot can show, in one browser context per page and width.
 * - first: an empty cache, as a visitor arriving from a link. Inter is
 *   `display: optional` and not preloaded, so this paint is usually in the
 *   fallback: on this machine DejaVu Sans, its only sans; on a phone its UI font.
 * - cached: the same page opened again, as any page after the first: Inter
 *   comes from the cache and is there for the first paint.
 */
const visits = ["first", "cached"];

/**
 * Screenshots of each page at a phone's and a laptop's width, first screen and
 * whole page, on a first visit and from the cache. Saved to
 * bench/.runs/screenshots for a human to judge.
 *
 * @param {{ label: string, url: string }[]} targets
 */
export async function takeScreenshots(targets, widths = [375, 1280]) {
  const dir = `${paths.runs}screenshots/`;
  await mkdir(dir, { recursive: true });
  const browser = await chromium.launch({ executablePath: chromiumPath });
  const saved = [];
  try {
    for (const { label, url } of targets) {
      for (const width of widths) {
        const context = await browser.newContext({ viewport: { width, height: width < 768 ? 812 : 800 }, reducedMotion: "reduce" });
        const page = await context.newPage();
        for (const visit of visits) {
          const name = `${dir}${label.replace(/\W+/g, "") || "home"}-${width}-${visit}`;
          await page.goto(url, { waitUntil: "networkidle" });
          await page.screenshot({ path: `${name}.png` });
          // Sections with content-visibility: auto render as they near the
          // viewport, and a full-page capture does not scroll: render them all.
          await page.addStyleTag({ content: "* { content-visibility: visible !important; }" });
          await page.screenshot({ path: `${name}-full.png`, fullPage: true });
          saved.push(`${name}.png`, `${name}-full.png`);
        }
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
  return saved;
}
