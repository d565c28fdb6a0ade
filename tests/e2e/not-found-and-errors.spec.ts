import { testErrorMessage } from "@/app/test-error/test-message";
import { errorContent } from "@/components/errors/error-content";
import { expect, test } from "./fixtures";

test("an unknown path answers 404 with a way home, and names the path in the console", async ({ page, jsEnabled }) => {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  const response = await page.goto("/no/such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Oops! Page not found");
  const home = page.getByRole("link", { name: errorContent.home });
  await expect(home).toHaveAttribute("href", "/");
  // The browser's console names the 404 itself; the page's own line names the path, with JavaScript on.
  await expect.poll(() => errors).toContainEqual(expect.stringContaining("404 (Not Found)"));
  const line = `${errorContent.notFoundConsole} /no/such-page`;
  if (jsEnabled) await expect.poll(() => errors).toContain(line);
  else expect(errors).not.toContain(line);

  await home.click();
  await expect(page).toHaveURL("/");
});

test("a server rendering error answers 500 without leaking its message", async ({ page, jsEnabled }) => {
  const response = await page.goto("/test-error");
  expect(response?.status()).toBe(500);
  expect(await response?.text()).not.toContain(testErrorMessage);
  if (jsEnabled) {
    // The route boundary renders in the browser and shows the digest from the server log.
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Unexpected Application Error!");
    await expect(page.getByRole("main")).toContainText(/could not render this page \(error reference \d+\)/);
    await expect(page.getByRole("button", { name: errorContent.retry })).toBeVisible();
  } else {
    // Next renders error boundaries in the browser: without JavaScript only the status tells.
    await expect(page.locator("body")).toHaveText("");
  }
});

test("an error thrown in the browser shows its own message", async ({ page, jsEnabled }) => {
  const response = await page.goto("/test-error?in=browser");
  expect(response?.status()).toBe(200);
  if (jsEnabled) {
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Unexpected Application Error!");
    await expect(page.getByRole("main")).toContainText(testErrorMessage);
    await page.getByRole("link", { name: errorContent.home }).click();
    await expect(page).toHaveURL("/");
  }
  // Without JavaScript the page never fails: the throw happens after hydration.
});
