import path from "node:path";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { SQLite } from "@/server/db/sqlite-driver";
import { setUpFirstOwner } from "../support/console-browser";
import { postSignupWithoutScript, startConsoleSite } from "../support/next-server";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { serverSpecBrowser } from "./e2e-env";
import { expect, test } from "./fixtures";

test.use({ ...serverSpecBrowser, javaScriptEnabled: true });

// A day's texts budget of 3, spent by the first three sign-ups: the next four are told they joined, texted nothing,
// and wait for an owner, who hears of it once. Released, a group is texted; dropped, a group is gone with its consents.
test("past the day's texts budget, sign-ups wait for an owner: one alert, a group released and texted, another dropped", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const receiver = await startWebhookReceiver();
  const healthToken = "budget-health-token-of-this-spec-0123456789";
  const { dataDir, port, site, setupToken, stop } = await startConsoleSite("budget", {
    HEALTH_TOKEN: healthToken,
    WAITLIST_WEBHOOK_URL: `${receiver.url}/hooks/waitlist`,
    ALERT_WEBHOOK_URL: `${receiver.url}/hooks/alerts`,
    WAITLIST_DAILY_LIMIT: "3",
  });
  const context = await browser.newContext();
  try {
    const direct = `http://127.0.0.1:${port}`;
    const join = (name: string, phone: string, i: number) =>
      postSignupWithoutScript(direct, { name, phone, consent: "on" }, { "x-forwarded-for": `198.51.100.${i}` });
    const early = ["Ana", "Ben", "Cy"].map((name, i) => ({ name: `${name} ${port}`, phone: `+1 312 555 01${10 + i}` }));
    const bay = ["Dee", "Eli"].map((name, i) => ({ name: `${name} ${port}`, phone: `+1 415 555 01${20 + i}` }));
    const city = ["Fay", "Gus"].map((name, i) => ({ name: `${name} ${port}`, phone: `+1 212 555 01${30 + i}` }));
    const everyone = [...early, ...bay, ...city];
    for (const [i, chef] of everyone.entries()) {
      const answer = await join(chef.name, chef.phone, i + 1);
      expect(answer.html, chef.name).toContain(waitlistMessages.success.title);
    }
    const texted = (chefs: typeof everyone) => chefs.map((chef) => receiver.withName(chef.name).length);
    await expect.poll(() => texted(early)).toEqual([1, 1, 1]);
    expect(texted([...bay, ...city])).toEqual([0, 0, 0, 0]);

    // One alert, with the count and no number.
    const alerts = () => receiver.received.filter((request) => request.path === "/hooks/alerts");
    await expect.poll(() => alerts().length).toBe(1);
    expect(alerts()[0]!.json).toMatchObject({ kind: "over_budget", form: "waitlist" });
    expect(alerts()[0]!.body).not.toMatch(/555/);
    const health = await fetch(`${direct}/api/health`, { headers: { Authorization: `Bearer ${healthToken}` } });
    expect(((await health.json()) as { forms: Record<string, object> }).forms.waitlist).toMatchObject({
      waitingForOperator: 4,
      waitingForBudget: 0,
    });

    // The first owner, enrolled with the setup token.
    const page = await setUpFirstOwner(context, site, setupToken);
    await expect(page.getByRole("cell", { name: "for your decision" })).toBeVisible();

    await page.goto(`${site}/console/deliveries`);
    const group = (prefix: string) =>
      page.locator("article").filter({ has: page.getByRole("heading", { name: `Numbers starting ${prefix}` }) });
    await expect(group("+1 415-555")).toContainText(": 2");
    await expect(group("+1 212-555")).toContainText(": 2");

    await group("+1 415-555").getByRole("button", { name: "Release" }).first().click();
    await expect(page.getByRole("status").first()).toContainText("the receiver took 2 sign-ups");
    expect(texted(bay)).toEqual([1, 1]);
    await expect(group("+1 415-555")).toHaveCount(0);

    await group("+1 212-555").getByRole("link", { name: "Drop…" }).first().click();
    await expect(page.getByText("Dropping the 2 sign-ups whose numbers start +1 212-555")).toBeVisible();
    await page.getByRole("button", { name: "Drop them" }).click();
    await expect(page.getByRole("status").first()).toContainText("Dropped 2 sign-ups");
    await expect(page.getByRole("heading", { name: "Waiting for your decision" })).toHaveCount(0);
    expect(texted(city)).toEqual([0, 0]);

    const db = new SQLite(path.join(dataDir, "sous.db"), { readonly: true, fileMustExist: true });
    try {
      const kept = (phone: string) =>
        db.prepare("select count(*) as n from consents where phone = ?").get(phone.replaceAll(" ", ""));
      expect(city.map((chef) => kept(chef.phone))).toStrictEqual([{ n: 0 }, { n: 0 }]);
      expect(bay.map((chef) => kept(chef.phone))).toStrictEqual([{ n: 1 }, { n: 1 }]);
      const payloads = db.prepare("select payload from outbox where payload like ?").all(`%Fay ${port}%`);
      expect(payloads).toStrictEqual([]);
      const decided = db
        .prepare("select action, rows from operator_activity where action in ('redeliver', 'drop') order by at")
        .all();
      expect(decided).toStrictEqual([
        { action: "redeliver", rows: 2 },
        { action: "drop", rows: 2 },
      ]);
    } finally {
      db.close();
    }
    expect(alerts()).toHaveLength(1);
  } finally {
    await context.close();
    await stop();
    await receiver.close();
  }
});
