import type { Page } from "@playwright/test";
import { errorContent } from "@/components/errors/error-content";
import { contactMessages } from "@/lib/forms/contact";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { serverSpecBrowser } from "./e2e-env";
import { expect, test } from "./fixtures";
import { holdScripts, untilParsed } from "./held-scripts";
import { ContactFormPage } from "./pages/contact-form";
import { SignupFormPage } from "./pages/signup-form";
import { deliveriesNamed, uniquePhone, uniqueToken } from "./receiver-client";
import { toasts } from "./toasts";

/**
 * The Content-Security-Policy allows no inline script it did not hash or give
 * a nonce (server/web/page-policy.ts): every page runs every script it
 * carries, with JavaScript on, and the browser refuses none. A `.server` spec
 * only so that it runs once, in a browser with JavaScript on (the js-off
 * project runs no script to refuse); it uses the suite's own server.
 */
test.use({ ...serverSpecBrowser, javaScriptEnabled: true });

type Watched = Window & { cspViolations?: string[]; next?: { version?: string } };

/**
 * What the page ran into, from before its first script on: the violations it
 * reported, the browser's console lines about one, and whether Next's client
 * started (it sets window.next as it hydrates the page).
 */
async function watchScripts(page: Page) {
  await page.addInitScript(() => {
    const seen: string[] = [];
    Object.assign(window, { cspViolations: seen });
    document.addEventListener("securitypolicyviolation", (event) =>
      seen.push(`${event.effectiveDirective} refused ${event.blockedURI}: ${event.sample}`),
    );
  });
  const consoleLines: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) consoleLines.push(message.text());
  });
  const violations = async () => [
    ...(await page.evaluate(() => (window as Watched).cspViolations ?? ["no watcher"])),
    ...consoleLines,
  ];
  return {
    violations,
    /** Waits for the page to hydrate, failing with what it refused if it does not. */
    async hydratedCleanly() {
      const state = async () => ({
        violations: await violations(),
        hydrated: await page.evaluate(() => (window as Watched).next?.version !== undefined),
      });
      await expect.poll(state, { timeout: 15_000 }).toEqual({ violations: [], hydrated: true });
      await page.waitForLoadState("networkidle");
      expect(await violations()).toEqual([]);
    },
  };
}

const scriptSources = (policy: string | null) =>
  (policy ?? "")
    .split(";")
    .map((directive) => directive.trim().split(/\s+/))
    .find(([name]) => name === "script-src")
    ?.slice(1) ?? [];

for (const path of ["/", "/signup", "/terms", "/privacy", "/sent/contact", "/sent/waitlist", "/no-such-page"]) {
  test(`${path} runs every script it carries, none refused by a policy that allows no inline script`, async ({
    page,
  }) => {
    const watched = await watchScripts(page);
    const notFoundLines: string[] = [];
    page.on("console", (message) => {
      if (message.text().startsWith(errorContent.notFoundConsole)) notFoundLines.push(message.text());
    });
    const response = await page.goto(path);
    const sources = scriptSources((await response?.headerValue("content-security-policy")) ?? null);
    expect(sources).not.toContain("'unsafe-inline'");
    expect(sources.filter((source) => source.startsWith("'sha256-")).length).toBeGreaterThanOrEqual(3);
    await watched.hydratedCleanly();
    // The 404 page's own inline line ran (the browser's console names the path).
    if (path === "/no-such-page") expect(notFoundLines).toEqual([`${errorContent.notFoundConsole} /no-such-page`]);
  });
}

test("a form's answer rendered for its post, sent before the scripts ran, carries a nonce its scripts run with", async ({
  page,
}) => {
  const watched = await watchScripts(page);
  const scripts = await holdScripts(page);
  const form = new SignupFormPage(page);
  await form.open(untilParsed);
  await form.fill({ name: "Z", phone: "+1 415 555 0142", consent: true });
  const answer = page.waitForResponse((response) => response.request().method() === "POST");
  await form.submit.click();
  const response = await answer;
  // The server's own answer, the page rendered for this post with its error inline.
  await expect(form.main.getByText(waitlistMessages.invalid.name)).toBeVisible();
  const sources = scriptSources(await response.headerValue("content-security-policy"));
  expect(sources).toEqual(["'self'", expect.stringMatching(/^'nonce-[A-Za-z0-9+/]{22}=='$/)]);
  const nonce = sources[1]?.slice("'nonce-".length, -1);
  // The browser hides a nonce's attribute once the script is in the page, not its property.
  expect(await page.evaluate(() => [...document.scripts].map((script) => script.nonce))).toContain(nonce);
  await scripts.release();
  await watched.hydratedCleanly();
});

test("the phone's menu opened and both forms sent with JavaScript, answered in their toasts: nothing refused", async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 740 });
  const watched = await watchScripts(page);
  const contact = new ContactFormPage(page);
  await contact.open("/");
  await watched.hydratedCleanly();
  const toggle = page.getByRole("button", { name: "Menu" });
  await toggle.click();
  await expect(page.getByRole("navigation", { name: "Mobile" })).toBeVisible();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("navigation", { name: "Mobile" })).toBeHidden();

  // The quote request, answered in a toast: sonner injects its own style as it shows one.
  const token = uniqueToken("csp");
  await contact.fill({
    name: `Julia ${token}`,
    email: `julia.${token}@example.com`,
    phone: "(555) 123-4567",
    clientCount: "1-5",
    currentTools: "Paper and a spreadsheet",
    message: "Menus and invoices for twelve families.",
  });
  await contact.submit.click();
  await expect(toasts(page)).toContainText(contactMessages.success.text);
  expect(await deliveriesNamed(token)).toHaveLength(1);
  // Each document keeps its own list: read before the next page replaces it.
  expect(await watched.violations()).toEqual([]);

  const signup = new SignupFormPage(page);
  await signup.open();
  await watched.hydratedCleanly();
  await signup.fill({ name: `Ada ${token}`, phone: uniquePhone().typed, consent: true });
  await signup.submit.click();
  await expect(toasts(page).last()).toContainText(waitlistMessages.success.text);
  expect(await deliveriesNamed(`Ada ${token}`)).toHaveLength(1);
  expect(await watched.violations()).toEqual([]);
});

test("the watcher sees an inline script the policy did not allow, and that script does not run", async ({ page }) => {
  const { violations, hydratedCleanly } = await watchScripts(page);
  await page.goto("/");
  await hydratedCleanly();
  await page.evaluate(() => {
    const script = document.createElement("script");
    script.textContent = "window.injected = true";
    document.body.append(script);
  });
  // The event (no sample: the policy does not ask for one) and the browser's own console line.
  await expect
    .poll(violations)
    .toEqual([
      "script-src-elem refused inline: ",
      expect.stringContaining("Executing inline script violates the following Content Security Policy directive"),
    ]);
  expect(await page.evaluate(() => (window as Window & { injected?: boolean }).injected)).toBeUndefined();
});
