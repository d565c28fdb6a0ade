import { gzipSync } from "node:zlib";
import { chromium } from "@playwright/test";
import { chromeFlags, chromiumPath, stylesheetMarker } from "./config.mjs";

const gzipped = (buffers) => buffers.reduce((sum, buffer) => sum + gzipSync(buffer, { level: 9 }).length, 0);

/**
 * Loads each page in a fresh browser context, as a first-time visitor would,
 * and weighs the scripts and stylesheets it requested, each gzipped here so
 * the figure does not depend on the server's compression; notes every console
 * error and failed request. `notFound` is the page expected to answer 404.
 */
export async function weighPages(paths, appURL, notFound, label = "") {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromeFlags });
  try {
    const results = [];
    for (const path of paths)
      results.push({
        ...(await weighPage(browser, path, new URL(path, appURL).href, path === notFound)),
        path: `${path}${label}`,
        before: label !== "",
      });
    return results;
  } finally {
    await browser.close();
  }
}

async function weighPage(browser, path, url, expectNotFound) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const ownDocument = (requestUrl) => expectNotFound && requestUrl === url;
  const consoleErrors = [];
  const failedRequests = [];
  const bodies = { script: [], stylesheet: [] };
  const fontRequests = [];
  page.on("request", (request) => {
    if (request.resourceType() === "font") fontRequests.push(request.url());
  });
  page.on("console", (message) => {
    // Chromium reports the expected 404 of the document itself as a console error too.
    if (message.type() === "error" && !(ownDocument(message.location().url) && message.text().includes("404")))
      consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(`Uncaught ${error.name}: ${error.message}`));
  page.on("requestfailed", (request) =>
    failedRequests.push(`${request.failure()?.errorText ?? "failed"} ${request.url()}`),
  );
  page.on("response", (response) => {
    const request = response.request();
    if (response.status() >= 400 && !ownDocument(request.url()))
      failedRequests.push(`${response.status()} ${request.url()}`);
    const type = request.resourceType();
    if (type in bodies) bodies[type].push(response.body().catch(() => null));
  });
  try {
    const response = await page.goto(url, { waitUntil: "networkidle" });
    const expected = expectNotFound ? 404 : 200;
    if (response?.status() !== expected)
      failedRequests.push(`document answered ${response?.status()}, expected ${expected}`);
    // The stylesheet is a <style> in the document: its bytes count with the HTML.
    const html = await response?.body().catch(() => null);
    const scripts = (await Promise.all(bodies.script)).filter(Boolean);
    const styles = (await Promise.all(bodies.stylesheet)).filter(Boolean);
    const text = html?.toString("utf8") ?? "";
    return {
      path,
      htmlGzip: html ? gzipped([html]) : Number.NaN,
      // As the budgets count it: the document as served, raw and at zlib's default level.
      htmlRaw: html ? html.length : Number.NaN,
      htmlGzipDefault: html ? gzipSync(html).length : Number.NaN,
      fontFaces: text.split("@font-face").length - 1,
      fontRequests: fontRequests.length,
      stylesheets: text.split(stylesheetMarker).length - 1,
      jsGzip: gzipped(scripts),
      cssGzip: gzipped(styles),
      jsFiles: scripts.length,
      consoleErrors,
      failedRequests,
    };
  } finally {
    await context.close();
  }
}
