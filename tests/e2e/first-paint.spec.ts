import { consentFieldNames } from "@/lib/forms/consent";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { expect, sameWithoutScripts, test } from "./fixtures";
import { holdScripts, untilParsed } from "./held-scripts";
import { SignupFormPage } from "./pages/signup-form";
import { deliveriesNamed, uniquePhone, uniqueToken } from "./receiver-client";
import { toasts } from "./toasts";

/**
 * The first view paints in the device's own font, then the page's scripts
 * start (docs/decisions/0010-system-font-and-late-hydration.md). A visitor who
 * acts before they have run is served by the page as it is (native popover,
 * forms that post without JavaScript), and hydration takes its state from the
 * page as the visitor left it.
 */

const pages = ["/", "/signup", "/terms", "/privacy", "/no-such-page"];

test(
  "every page paints in the system font, with no @font-face and no font requested",
  sameWithoutScripts,
  async ({ page }) => {
    const fonts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "font" || /\.(woff2?|ttf|otf)(\?|$)/.test(request.url()))
        fonts.push(request.url());
    });
    for (const path of pages) {
      await page.goto(path);
      await page.waitForLoadState("networkidle");
      const paint = await page.evaluate(() => ({
        family: getComputedStyle(document.body).fontFamily,
        heading: getComputedStyle(document.querySelector("h1") ?? document.body).fontFamily,
        fontFaces: [...document.styleSheets]
          .flatMap((sheet) => [...sheet.cssRules])
          .filter((rule) => rule instanceof CSSFontFaceRule).length,
        loaded: document.fonts.size,
      }));
      expect(paint, path).toEqual({
        family: expect.stringMatching(/^system-ui, -apple-system, "Segoe UI", Roboto/),
        heading: expect.stringMatching(/^system-ui,/),
        fontFaces: 0,
        loaded: 0,
      });
    }
    expect(fonts).toEqual([]);
    // The working twin: the same count and the same listener see a web font the page is given.
    await page.evaluate(() => {
      const style = document.createElement("style");
      style.textContent = "@font-face{font-family:Probe;src:url(/probe.woff2)}body{font-family:Probe}";
      document.head.append(style);
    });
    await expect.poll(() => fonts).toEqual([expect.stringMatching(/\/probe\.woff2$/)]);
    expect(
      await page.evaluate(
        () =>
          [...document.styleSheets]
            .flatMap((sheet) => [...sheet.cssRules])
            .filter((rule) => rule instanceof CSSFontFaceRule).length,
      ),
    ).toBe(1);
  },
);

test(
  "each icon's shapes are in the HTML once, drawn by the server: the payload names the icon",
  sameWithoutScripts,
  async ({ request }) => {
    for (const path of ["/", "/signup"]) {
      const html = await (await request.get(path)).text();
      const payload = [...html.matchAll(/<script>self\.__next_f\.push\((.*?)\)<\/script>/gs)]
        .map((match) => match[1])
        .join("");
      const shapes = [
        ...html.matchAll(/<svg viewBox="0 0 24 24" aria-hidden="true" class="icon[^"]*">(.*?)<\/svg>/g),
      ].map((match) => match[1] ?? "");
      expect(shapes.length, path).toBeGreaterThan(path === "/" ? 15 : 1);
      for (const shape of shapes) {
        const firstPath = /d="([^"]+)"/.exec(shape)?.[1] ?? shape;
        expect(shape, path).not.toBe("");
        expect(payload, `${path}: ${firstPath}`).not.toContain(firstPath);
      }
      // The working twin: the payload does carry the page's own words.
      expect(payload).toContain(path === "/" ? "Flat monthly pricing" : "Early Access Sign Up");
    }
  },
);

test("nothing moves while the pages load and hydrate, and a shift made on purpose is measured", async ({ page }) => {
  test.setTimeout(60_000);
  // From the browser itself (DevTools protocol), as no script of the page runs with JavaScript off.
  const shifts: { value: number; moved: string[] }[] = [];
  const cdp = await page.context().newCDPSession(page);
  const box = (rect: { x: number; y: number; width: number; height: number }) =>
    `${rect.x},${rect.y} ${rect.width}x${rect.height}`;
  cdp.on("PerformanceTimeline.timelineEventAdded", ({ event }) => {
    const shift = event.layoutShiftDetails;
    if (shift && !shift.hadRecentInput)
      shifts.push({
        value: shift.value,
        // What moved, for the failure's message: each box before and after.
        moved: shift.sources.map((source) => `${box(source.previousRect)} -> ${box(source.currentRect)}`),
      });
  });
  await cdp.send("PerformanceTimeline.enable", { eventTypes: ["layout-shift"] });
  const shifted = () => shifts.reduce((sum, { value }) => sum + value, 0);
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    for (const path of ["/", "/signup"]) {
      await page.goto(path);
      await page.waitForLoadState("networkidle");
      // A moment after the last request: a late shift would have been reported.
      await page.waitForTimeout(250);
      expect(shifted(), `${path} at ${width} px: ${shifts.flatMap(({ moved }) => moved).join("; ")}`).toBe(0);
    }
  }
  // The working twin: the same measurement sees the page pushed down by 200 px.
  await page.evaluate(() => {
    document.body.style.paddingTop = "200px";
  });
  await expect.poll(shifted).toBeGreaterThan(0);
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 375, height: 740 } });

  test("the menu opened before the scripts ran is reported open once they have", async ({ page, jsEnabled }) => {
    const scripts = await holdScripts(page);
    await page.goto("/", untilParsed);
    const toggle = page.getByRole("button", { name: "Menu" });
    const menu = page.getByRole("navigation", { name: "Mobile" });
    await toggle.click();
    await expect(menu).toBeVisible();
    // Not hydrated yet: React has not set aria-expanded.
    await expect(toggle).not.toHaveAttribute("aria-expanded");
    // The press itself asked for the scripts (they are held here).
    if (jsEnabled) await expect.poll(scripts.requested).toBeGreaterThan(0);
    await scripts.release();
    if (jsEnabled) await expect(toggle).toHaveAttribute("aria-expanded", "true");
    await expect(menu).toBeVisible();
    // And it stays in step: Escape closes the popover, and the button says so.
    await page.keyboard.press("Escape");
    await expect(menu).toBeHidden();
    if (jsEnabled) await expect(toggle).toHaveAttribute("aria-expanded", "false");
  });
});

test("a sign-up sent before the scripts ran reaches the success page and the webhook", async ({ page }) => {
  const scripts = await holdScripts(page);
  const form = new SignupFormPage(page);
  const token = uniqueToken();
  await form.open(untilParsed);
  await form.fill({ name: `Ada ${token}`, phone: uniquePhone().typed, consent: true });
  // Sent by the page as the server rendered it: no script has run.
  await expect(page.locator(`input[name="${consentFieldNames.javascript}"]`)).toHaveValue("0");
  await form.submit.click();
  await expect(page).toHaveURL(/\/sent\/waitlist$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(waitlistMessages.success.title);
  expect(await deliveriesNamed(token)).toHaveLength(1);
  await scripts.release();
});

test("what a visitor typed before the scripts ran is still there once they have, and is sent", async ({
  page,
  jsEnabled,
}) => {
  const scripts = await holdScripts(page);
  const form = new SignupFormPage(page);
  const token = uniqueToken();
  const phone = uniquePhone();
  await form.open(untilParsed);
  await form.fill({ name: `Ada ${token}`, phone: phone.typed, consent: true });
  await scripts.release();
  // Hydrated: React has set the consent record's JavaScript flag.
  if (jsEnabled) await expect(page.locator(`input[name="${consentFieldNames.javascript}"]`)).toHaveValue("1");
  await expect(form.name).toHaveValue(`Ada ${token}`);
  await expect(form.phone).toHaveValue(phone.typed);
  await expect(form.consent).toBeChecked();
  await form.submit.click();
  if (jsEnabled) await expect(toasts(page)).toContainText(waitlistMessages.success.title);
  else await expect(page).toHaveURL(/\/sent\/waitlist$/);
  const deliveries = await deliveriesNamed(token);
  expect(deliveries).toHaveLength(1);
  expect(deliveries[0]?.json).toEqual({ phone: phone.e164, name: `Ada ${token}` });
});
