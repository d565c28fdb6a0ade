import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import {
  type TastingValues,
  tastingFields,
  tastingMessages,
} from "@/tests/fixtures/third-form/lib/forms/tasting/words";
import { errorContent } from "@/components/errors/error-content";
import { testErrorMessage } from "@/tests/fixtures/error-pages/app/test-error/test-message";
import { buildCopySite } from "@/tests/support/copy-site";
import type { Started } from "@/tests/support/processes";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { serverSpecBrowser } from "./e2e-env";
import { expectStyled } from "./styled";
import { toasts } from "./toasts";
import { untilHydrated } from "./hydration";

// A server spec (it builds and serves a site of its own: a copy with the third form of docs/adding-a-form.md and the
// error pages' fixture, tests/support/copy-site.ts) with a browser.
test.use(serverSpecBrowser);
test.describe.configure({ mode: "serial", timeout: 60_000 });

let site: ReturnType<typeof buildCopySite>;
let server: Started;
let receiver: WebhookReceiver;
const secret = newWebhookSecret();

test.beforeAll(async () => {
  // A whole `npm run build` of the copy.
  test.setTimeout(8 * 60_000);
  receiver = await startWebhookReceiver();
  site = buildCopySite();
  server = await site.start({
    TASTING_WEBHOOK_URL: `${receiver.url}/hooks/tasting`,
    TASTING_WEBHOOK_SECRET: secret,
    TRUSTED_PROXY_HOPS: "0",
  });
});

test.afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  site?.remove();
});

let token = 0;
function request() {
  token += 1;
  return { name: `Alice Waters t${token}`, email: `alice${token}@example.com`, guests: "6" };
}

for (const javaScriptEnabled of [true, false]) {
  const js = javaScriptEnabled ? "on" : "off";

  test(`a third form built from docs/adding-a-form.md delivers, signed, and shows its success (JavaScript ${js})`, async ({
    browser,
  }) => {
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    await page.goto(`${server.url}/tasting`);
    await untilHydrated(page.locator("form"));
    const fields = request();
    for (const [name, value] of Object.entries(fields))
      await page.getByLabel(tastingFields[name as keyof TastingValues].label).fill(value);
    await page.getByRole("button", { name: tastingMessages.submit }).click();

    if (javaScriptEnabled) {
      // The toast: FormMount mounted the toaster with the form.
      await expect(toasts(page).filter({ hasText: tastingMessages.success.title })).toBeVisible();
      await expect(page.getByLabel(tastingFields.name.label)).toHaveValue("");
    } else {
      // Post/redirect/get: the form's own result page.
      await expect(page).toHaveURL(`${server.url}/sent/tasting`);
      await expect(page.getByText(tastingMessages.success.text)).toBeVisible();
    }
    await expect.poll(() => receiver.withName(fields.name).length).toBe(1);
    const [delivered] = receiver.withName(fields.name);
    expect(delivered?.path).toBe("/hooks/tasting");
    expect(new Webhook(secret).verify(delivered!.body, delivered!.headers as Record<string, string>)).toStrictEqual({
      email: fields.email,
      name: fields.name,
      guests: 6,
    });
    await context.close();
  });

  test(`its bad input is answered in its own words and sent nowhere (JavaScript ${js})`, async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    await page.goto(`${server.url}/tasting`);
    await untilHydrated(page.locator("form"));
    const fields = { ...request(), guests: "41" };
    for (const [name, value] of Object.entries(fields))
      await page.getByLabel(tastingFields[name as keyof TastingValues].label).fill(value);
    await page.getByRole("button", { name: tastingMessages.submit }).click();
    await expect(page.getByText(tastingMessages.invalid.guests)).toBeVisible();
    await expect(page.getByLabel(tastingFields.name.label)).toHaveValue(fields.name);
    // The same set-up that delivers a good request (the test above) sent this one nowhere.
    expect(receiver.withName(fields.name)).toHaveLength(0);
    await context.close();
  });
}

for (const javaScriptEnabled of [true, false]) {
  const js = javaScriptEnabled ? "on" : "off";

  test(`a server rendering error answers 500 without leaking its message, its boundary styled (JavaScript ${js})`, async ({
    browser,
  }) => {
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    const response = await page.goto(`${server.url}/test-error`);
    expect(response?.status()).toBe(500);
    expect(await response?.text()).not.toContain(testErrorMessage);
    if (javaScriptEnabled) {
      // The route boundary renders in the browser and shows the digest from the server log.
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Unexpected Application Error!");
      await expect(page.getByRole("main")).toContainText(/could not render this page \(error reference \d+\)/);
      await expect(page.getByRole("button", { name: errorContent.retry })).toBeVisible();
      await expectStyled(page, "server error, its boundary rendered in the browser");
    } else {
      // Next renders error boundaries in the browser: without JavaScript only the status tells.
      await expect(page.locator("body")).toHaveText("");
    }
    await context.close();
  });

  test(`an error thrown in the browser shows its own message, styled, and a retry and a way home (JavaScript ${js})`, async ({
    browser,
  }) => {
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    const response = await page.goto(`${server.url}/test-error?in=browser`);
    expect(response?.status()).toBe(200);
    if (javaScriptEnabled) {
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Unexpected Application Error!");
      await expect(page.getByRole("main")).toContainText(testErrorMessage);
      await expectStyled(page, "error thrown in the browser");
      // A retry renders the page again, which fails again: the boundary, still styled.
      await page.getByRole("button", { name: errorContent.retry }).click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Unexpected Application Error!");
      await expectStyled(page, "after retry");
      await page.getByRole("link", { name: errorContent.home }).click();
      await expect(page).toHaveURL(`${server.url}/`);
    } else {
      // Without JavaScript the page never fails (the throw comes after hydration): it is the page itself.
      await expect(page.getByText("Unexpected Application Error!")).toHaveCount(0);
      await expectStyled(page, "/test-error?in=browser without JavaScript");
    }
    await context.close();
  });
}
