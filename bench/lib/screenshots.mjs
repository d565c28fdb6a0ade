import { mkdir } from "node:fs/promises";
import { chromium } from "@playwright/test";
import { chromiumPath, paths } from "./config.mjs";

/**
 * Screenshots of each page at a phone's and a laptop's width, first screen and
 * whole page, as a fresh visitor sees them (empty cache: the font as the
 * first visit gets it). Saved to bench/.runs/screenshots for a human to judge.
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
        await page.goto(url, { waitUntil: "networkidle" });
        await page.screenshot({ path: `${dir}${label.replace(/\W+/g, "") || "home"}-${width}.png` });
        saved.push(`${dir}${label.replace(/\W+/g, "") || "home"}-${width}.png`);
        // Sections with content-visibility: auto render as they near the
        // viewport, and a full-page capture does not scroll: render them all.
        await page.addStyleTag({ content: "* { content-visibility: visible !important; }" });
        const file = `${dir}${label.replace(/\W+/g, "") || "home"}-${width}-full.png`;
        await page.screenshot({ path: file, fullPage: true });
        saved.push(file);
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
  return saved;
}
