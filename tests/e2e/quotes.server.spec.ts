import AxeBuilder from "@axe-core/playwright";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { CEREMONY_MS, pressCeremony, setUpFirstOwner, withAuthenticator } from "../support/console-browser";
import { testDatabase } from "../support/lead-rows";
import { postSignupWithoutScript, startConsoleSite } from "../support/next-server";
import { Webhook } from "standardwebhooks";
import { newWebhookSecret } from "../support/webhook-secrets";
import { serverSpecBrowser } from "./e2e-env";
import { expect, test } from "./fixtures";
import { ContactFormPage } from "./pages/contact-form";

test.use({ ...serverSpecBrowser, javaScriptEnabled: true });

// No workflow connected: a quote request is held, and the founder reads it whole in the console, and in its CSV.
test("with no workflow connected, every console page says so first; a quote request held is read in full on /console/quotes and in its CSV, masked for a viewer, and marked handled; a STOP before delivery reads as such", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const consentSecret = newWebhookSecret();
  const { dataDir, port, site, setupToken, env, stop } = await startConsoleSite("quotes", {
    CONTACT_WEBHOOK_URL: "",
    CONSENT_WEBHOOK_SECRET: consentSecret,
  });
  const visitor = await browser.newContext({ baseURL: `http://127.0.0.1:${port}`, javaScriptEnabled: false });
  const ownerContext = await browser.newContext();
  const viewerContext = await browser.newContext();
  try {
    const request = {
      name: `Julia ${port}`,
      email: "julia.child@example.com",
      phone: "(415) 555-0199",
      clientCount: "6-15",
      currentTools: "=SUM(A1) and spreadsheets",
      message: "Menus, invoices\nand <b>grocery</b> runs.",
    };
    const form = new ContactFormPage(await visitor.newPage());
    await form.open();
    await form.fill(request);
    await form.submit.click();
    await expect(form.status).toContainText("Thank you");

    const joined = await postSignupWithoutScript(`http://127.0.0.1:${port}`, {
      name: `Ada ${port}`,
      phone: "(415) 555-0142",
      consent: "on",
    });
    expect(joined.status).toBe(200);

    const page = await setUpFirstOwner(ownerContext, site, setupToken);
    // No workflow connected: the overview says so first, and no receiver reads "working".
    const attention = page.getByRole("region", { name: "What needs attention" }).locator("p");
    await expect(attention.first()).toHaveText(
      "Welcome texts are not being sent: no workflow is connected for them, and 1 sign-up waits. What to set",
    );
    await expect(attention.nth(1)).toHaveText(
      "Quote requests are not being sent: no workflow is connected for them, and 1 quote request waits. What to set",
    );
    // Its link leads to the settings that cure it, each said set or not, never with its value.
    await attention.first().getByRole("link", { name: "What to set" }).click();
    await expect(page).toHaveURL(/\/console\/settings#waitlist$/);
    const welcome = page.getByRole("region", { name: "Welcome texts", exact: true });
    await expect(welcome.getByRole("row", { name: /WAITLIST_WEBHOOK_URL/ })).toContainText(/no$/);
    await expect(page.getByRole("region", { name: "Launch invitations", exact: true })).toContainText("INVITE_URL");
    await page.goto(`${site}/console`);
    const receivers = page.getByRole("table").filter({ hasText: "Receiver" });
    await expect(receivers).toContainText("not connected");
    await expect(receivers).not.toContainText("working");

    // Invitations not configured: a wave can be planned, and its Send is off, saying why. It plans a chef whose
    // welcome was texted (as a workflow would have reported it), and leaves out the one whose welcome waits.
    const welcomed = await postSignupWithoutScript(`http://127.0.0.1:${port}`, {
      name: `Bo ${port}`,
      phone: "(415) 555-0143",
      consent: "on",
    });
    expect(welcomed.status).toBe(200);
    const db = testDatabase({ dataDir });
    try {
      await db
        .updateTable("outbox")
        .set({ state: "delivered", answer: "texted" })
        .where("receiver", "=", "waitlist")
        .where("payload", "like", "%+14155550143%")
        .execute();
    } finally {
      await db.destroy();
    }
    await page.goto(`${site}/console/invitations?plan=next&next=1`);
    await expect(page.getByRole("status")).toHaveText("1 number would be texted, in sign-up order.");
    await expect(page.locator("details", { hasText: "Whose welcome was not texted" }).locator("li")).toHaveText(
      "+14155550142: waiting",
    );
    await expect(page.getByRole("button", { name: "Send the wave" })).toBeDisabled();
    await expect(page.getByText("Sending is off until invitations are configured")).toBeVisible();

    await page.getByRole("link", { name: "Quotes" }).click();
    await expect(page.getByRole("heading", { name: "Quote requests", level: 1 })).toBeVisible();
    const row = page.getByRole("row").filter({ hasText: request.name });
    for (const value of [request.name, request.email, request.phone, "6-15", request.currentTools])
      await expect(row, value).toContainText(value);
    expect(await row.getByRole("cell").nth(5).innerText()).toBe(request.message);
    const scanned = await new AxeBuilder({ page })
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
      .analyze();
    expect(scanned.violations.map(({ id }) => id)).toStrictEqual([]);
    await expect(row).toContainText("waiting: no workflow connected");

    // The CSV, among the exports: the same values, spreadsheet-safe.
    await page.goto(`${site}/console/exports`);
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: /quote requests/i }).click();
    const csv = await (await (await download).createReadStream()).toArray();
    const text = Buffer.concat(csv).toString("utf8");
    expect(text).toContain(request.name);
    expect(text).toContain("julia.child@example.com");
    expect(text).toContain("'=SUM(A1) and spreadsheets");

    // A viewer: masked, no message, nothing to mark.
    const { stdout } = await promisify(execFile)(
      "npm",
      ["run", "--silent", "operators", "--", "add", "helper@example.com", "--role", "viewer"],
      { env: { ...process.env, ...env } },
    );
    const link = /https?:\/\/\S+\/console\/enrol\/\S+/.exec(stdout)?.[0];
    expect(link, stdout).toBeDefined();
    const viewer = (await withAuthenticator(viewerContext)).page;
    await viewer.goto(link!);
    await pressCeremony(viewer, "Register a passkey");
    await expect(viewer).toHaveURL(`${site}/console`, { timeout: CEREMONY_MS });
    await viewer.goto(`${site}/console/quotes`);
    const masked = viewer.getByRole("row").filter({ hasText: "j•••@example.com" });
    await expect(masked).toContainText("J•••");
    await expect(masked).toContainText("••• ••• 0199");
    await expect(masked).not.toContainText("555");
    await expect(viewer.getByText(request.name)).toHaveCount(0);
    await expect(viewer.getByText("Menus, invoices")).toHaveCount(0);
    await expect(viewer.getByRole("button", { name: "Mark handled" })).toHaveCount(0);

    // A STOP before the sign-up was delivered: its page says so, not that it was delivered and forgotten.
    const body = JSON.stringify({ type: "consent.revoke", phone: "+14155550142", channel: "sms" });
    const sent = new Date();
    const stop = await fetch(`http://127.0.0.1:${port}/api/consent/revoke`, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        "webhook-id": "msg_stop_before_delivery",
        "webhook-timestamp": String(Math.floor(sent.getTime() / 1000)),
        "webhook-signature": new Webhook(consentSecret).sign("msg_stop_before_delivery", sent, body),
      },
    });
    expect(await stop.json()).toStrictEqual({ recorded: true, leadsStopped: 1 });
    await page.goto(`${site}/console/waitlist`);
    await page.getByRole("link", { name: "+14155550142" }).click();
    const signup = page.locator("article").filter({ hasText: "Webhook id" });
    await expect(signup).toContainText("not kept (consent ended before delivery)");
    await expect(signup).toContainText("never: its consent ended first");
    await expect(signup).not.toContainText("past retention");

    // The owner marks it handled: the row says when, the activity log says who.
    await page.goto(`${site}/console/quotes`);
    await row.getByRole("button", { name: "Mark handled" }).click();
    await expect(page.getByRole("status").first()).toHaveText("Marked handled.");
    await expect(row).toContainText("Handled ");
    await page.goto(`${site}/console/activity`);
    await expect(page.getByRole("row").filter({ hasText: "handled" })).toContainText("founder@example.com");
  } finally {
    for (const context of [visitor, ownerContext, viewerContext]) await context.close();
    await stop();
  }
});
