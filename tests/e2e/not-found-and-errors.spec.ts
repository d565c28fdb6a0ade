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

// The error boundaries (a page that fails on the server, one that fails in the browser): copy-site.server.spec.ts,
// where their fixture is built into a copy of the site, never into the site's own build.
