import { gzipSync } from "node:zlib";
import { chromium } from "@playwright/test";
import { chromiumPath, nextURL, quietChromeFlags } from "./config.mjs";

/**
 * @typedef {object} PageWeight
 * @property {string} path
 * @property {number} htmlGzip   bytes of the document, gzipped at level 9 (an inlined stylesheet is in it)
 * @property {number} jsGzip     bytes of JavaScript, each file gzipped at level 9
 * @property {number} cssGzip
 * @property {number} jsFiles
 * @property {number} cssFiles
 * @property {string[]} consoleErrors
 * @property {string[]} failedRequests
 */

/**
 * Loads each page in a fresh browser context, as a first-time visitor would,
 * and weighs the scripts and stylesheets it actually requested. Gzipping each
 * body here, rather than reading transfer sizes, gives the same figure whether
 * or not the server compressed the response.
 *
 * @param {string[]} paths
 * @param {string} notFoundPath the page whose own document is expected to answer 404
 * @returns {Promise<PageWeight[]>}
 */
export async function weighPages(paths, notFoundPath) {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: quietChromeFlags });
  try {
    const results = [];
    for (const path of paths) results.push(await weighPage(browser, path, path === notFoundPath));
    return results;
  } finally {
    await browser.close();
  }
}

async function weighPage(browser, path, expectNotFound) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const url = new URL(path, nextURL).href;
  const isOwnDocument = (requestUrl) => expectNotFound && requestUrl === url;

  const consoleErrors = [];
  const failedRequests = [];
  const bodies = { script: [], stylesheet: [] };

  page.on("console", (message) => {
    if (message.type() !== "error") return;
    // Chromium reports the expected 404 of the document itself as a console error too.
    if (isOwnDocument(message.location().url) && message.text().includes("404")) return;
    consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(`Uncaught ${error.name}: ${error.message}`));
  page.on("requestfailed", (request) => {
    failedRequests.push(`${request.failure()?.errorText ?? "failed"} ${request.url()}`);
  });
  page.on("response", (response) => {
    const request = response.request();
    if (response.status() >= 400 && !isOwnDocument(request.url())) {
      failedRequests.push(`${response.status()} ${request.url()}`);
    }
    const type = request.resourceType();
    if (type === "script" || type === "stylesheet") bodies[type].push(response.body().catch(() => null));
  });

  try {
    const response = await page.goto(url, { waitUntil: "networkidle" });
    const expected = expectNotFound ? 404 : 200;
    if (response?.status() !== expected) failedRequests.push(`document answered ${response?.status()}, expected ${expected}`);
    // With the stylesheet inlined, the document carries it: its bytes count too.
    const html = (await response?.body().catch(() => null)) ?? null;
    const scripts = (await Promise.all(bodies.script)).filter(Boolean);
    const styles = (await Promise.all(bodies.stylesheet)).filter(Boolean);
    return {
      path,
      htmlGzip: html ? gzippedSize([html]) : Number.NaN,
      jsGzip: gzippedSize(scripts),
      cssGzip: gzippedSize(styles),
      jsFiles: scripts.length,
      cssFiles: styles.length,
      consoleErrors,
      failedRequests,
    };
  } finally {
    await context.close();
  }
}

function gzippedSize(buffers) {
  return buffers.reduce((sum, buffer) => sum + gzipSync(buffer, { level: 9 }).length, 0);
}
