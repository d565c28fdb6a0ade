import { errorContent } from "@/components/errors/error-content";
import { expect, test } from "./fixtures";

const pages = [
  { path: "/", status: 200 },
  { path: "/signup", status: 200 },
  { path: "/terms", status: 200 },
  { path: "/privacy", status: 200 },
  { path: "/sent/waitlist", status: 200 },
  { path: "/sent/waitlist/text-start", status: 404 },
  { path: "/sent/contact", status: 200 },
  { path: "/sent/contact/text-start", status: 404 },
  { path: "/missing-page", status: 404 },
];

for (const { path, status } of pages) {
  test(`${path} loads without console errors or failed requests`, async ({ page, problems, baseURL, jsEnabled }) => {
    const response = await page.goto(path, { waitUntil: "networkidle" });
    expect(response?.status()).toBe(status);
    // The 404 page's own status is the only failure allowed, and Chromium reports it as a console error.
    const expectedFailures = status === 404 ? [`${baseURL}${path} 404`] : [];
    expect(problems.failedRequests).toEqual(expectedFailures);
    // A 404: the browser's own line, and with JavaScript on the page's, naming the path (the spec's console line).
    const notFound = [
      expect.stringContaining("404 (Not Found)"),
      ...(jsEnabled ? [`${errorContent.notFoundConsole} ${path}`] : []),
    ];
    expect(problems.consoleErrors).toHaveLength(status === 404 ? notFound.length : 0);
    expect(problems.consoleErrors).toEqual(expect.arrayContaining(status === 404 ? notFound : []));
  });

  test(`${path} has no horizontal scroll at 320 px`, async ({ page }) => {
    await page.setViewportSize({ width: 320, height: 640 });
    await page.goto(path);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBe(0);
  });
}
