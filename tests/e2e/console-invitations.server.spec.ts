import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { BrowserContext, Page } from "@playwright/test";
import { smsTexts } from "@/lib/sms/program";
import { webhookPaths, workflowFile, workflowIds } from "@/workflows/n8n/build";
import { CEREMONY_MS, pressCeremony, setUpFirstOwner, withAuthenticator } from "../support/console-browser";
import { postIncomingSms, startFakeTwilio, type FakeTwilio } from "../support/fake-twilio";
import { invitationLinkOf, testDatabase } from "../support/lead-rows";
import { n8nLines, startN8n, type N8nServer } from "../support/n8n-server";
import { postSignupWithoutScript, startNextServer } from "../support/next-server";
import { numberUnder, openPrefix, specCountries, specHours } from "../support/open-zone";
import { stablePort, type Started } from "../support/processes";
import { newWebhookSecret } from "../support/webhook-secrets";
import { e2e, serverSpecBrowser } from "./e2e-env";
import { expect, test } from "./fixtures";

// A launch wave from the console, on today's n8n with the SMS program
// published (workflows/n8n/sms-program.json, as docs/sms-workflow.md sets it
// up) and a fake Twilio behind it: planned, sent by typing its name and its
// count, one chef texting STOP while it is queued (Twilio to n8n's inbound
// workflow, n8n to the site's signed revoke route), and its status followed
// until "texted 20"; a viewer's send refused.

test.use({ ...serverSpecBrowser, javaScriptEnabled: true });
test.describe.configure({ mode: "serial", timeout: 180_000 });

const setupToken = "console-invitations-setup-token-0123456789";
const inviteSecret = newWebhookSecret();
const waitlistSecret = newWebhookSecret();
const consentSecret = newWebhookSecret();
const inviteLink = "https://sous.example/early";
const inboundUrl = "https://n8n.sous.test/webhook/sous-sms-inbound";
let server: Started;
let dataDir: string;
let site: string;
let env: Record<string, string>;
let twilio: FakeTwilio;
let n8n: N8nServer;
/** The owner's browser state after the first test's sign-in: their session, for the test without JavaScript. */
let ownerState: Awaited<ReturnType<BrowserContext["storageState"]>>;
// Numbers whose sending hours stay open for the next 20 minutes, whatever the hour of the run.
const zone = openPrefix(20);
// 700 to 720: within every candidate's range (a London, Berlin or Athens number takes 3 digits more, up to 999).
const phones = Array.from({ length: 21 }, (_, index) => numberUnder(zone.prefix, 700 + index));

test.beforeAll(async () => {
  // The first run on a machine installs n8n from npm (about 5 minutes).
  test.setTimeout(25 * 60_000);
  dataDir = await mkdtemp(path.join(tmpdir(), "sous-console-invitations-"));
  twilio = await startFakeTwilio();
  // Known to n8n before the site starts on it, and the site's own after: a port no other test process is given.
  const port = await stablePort();
  n8n = await startN8n(
    n8nLines.current,
    { files: [workflowFile], ids: Object.values(workflowIds) },
    {
      SOUS_INVITE_WEBHOOK_SECRETS: inviteSecret,
      SOUS_WEBHOOK_SECRETS: waitlistSecret,
      SOUS_SITE_URL: `http://127.0.0.1:${port}`,
      CONSENT_WEBHOOK_SECRET: consentSecret,
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_FROM: "+15005550006",
      TWILIO_API_BASE: twilio.url,
      TWILIO_INBOUND_URL: inboundUrl,
      ...n8nLines.current.owner,
    },
  );
  site = `http://localhost:${port}`;
  env = {
    ...e2e.serverEnv,
    DATA_DIR: dataDir,
    SITE_URL: site,
    SITE_ALIASES: `127.0.0.1:${port}`,
    CONSOLE_SETUP_TOKEN: setupToken,
    WAITLIST_PHONE_COUNTRIES: specCountries,
    CONSENT_WEBHOOK_SECRET: consentSecret,
    // The welcome texted by n8n through the fake Twilio: a wave invites only numbers whose welcome was.
    WAITLIST_WEBHOOK_URL: n8n.webhookUrl(webhookPaths.welcome),
    WAITLIST_WEBHOOK_SECRET: waitlistSecret,
    INVITE_WEBHOOK_URL: n8n.webhookUrl(webhookPaths.invitations),
    INVITE_WEBHOOK_SECRET: inviteSecret,
    INVITE_URL: inviteLink,
    INVITE_HOURS: `${specHours.from}-${specHours.to}`,
    // One a second: the STOP below is recorded long before the last number's turn.
    INVITE_PER_MINUTE: "60",
    // n8n's answer to an invitation is not what this spec is about: a 4 s attempt that n8n outlasts under a loaded CI
    // run (the SMS specs' n8n did, in the run where this spec failed once at 2.9 min) retries in 5 s, then 60 s, and
    // failures in a row leave the workflow alone. Nothing here hangs, so a longer limit costs no time.
    WEBHOOK_ATTEMPT_TIMEOUT_MS: "15000",
    REDELIVERY_POLL_MS: "200",
  };
  server = await startNextServer(env, port);
  // Each chef from an address of their own, as the proxy in front would say: the limits count per address.
  for (const [index, phone] of phones.entries()) {
    const posted = await postSignupWithoutScript(
      `http://127.0.0.1:${port}`,
      { phone, name: "Chef", consent: "on" },
      { "x-forwarded-for": `10.77.0.${index + 1}` },
    );
    expect(posted.url, phone).toBe("/sent/waitlist");
  }
});
test.afterAll(async () => {
  await server?.stop();
  await n8n?.stop();
  await twilio?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** What the fake Twilio texted: the invitation, to whom. */
const invited = () =>
  twilio
    .accepted()
    .filter((message) => invitationLinkOf(message.body, site))
    .map((message) => message.to);

/** `npm run <script> -- …` on the server's database, as an operator with a shell runs it. */
async function run(script: string, ...args: string[]) {
  const { stdout } = await promisify(execFile)("npm", ["run", "--silent", script, "--", ...args], {
    env: { ...process.env, ...env },
  });
  return stdout;
}

/** A chef's STOP as Twilio posts it to n8n's inbound workflow, which answers Twilio and then calls the site. */
async function textStop(phone: string) {
  const stop = await postIncomingSms(
    inboundUrl,
    n8n.webhookUrl(webhookPaths.incoming),
    { From: phone, Body: "STOP", OptOutType: "STOP" },
    { authToken: twilio.authToken, accountSid: twilio.accountSid },
  );
  expect(stop.status).toBe(200);
}

async function wave(page: Page, name: string) {
  return page.locator("article").filter({ has: page.getByRole("heading", { name: new RegExp(`^${name}:`) }) });
}

/** The wave's part of the page, once its status, read again each second, says `count` texted (within `timeout` ms). */
async function textedReaches(page: Page, name: string, count: number, timeout: number) {
  const launch = await wave(page, name);
  await expect(async () => {
    await page.reload();
    await expect(
      launch
        .locator("tr", { hasText: /^texted/ })
        .locator("td")
        .last(),
    ).toHaveText(String(count), { timeout: 1_000 });
  }).toPass({ timeout });
  return launch;
}

test("an owner plans the next 21, sends them by typing the wave's name and count, a chef's STOP texted while it is queued is skipped, and its status reaches texted 20; a viewer cannot send", async ({
  browser,
}) => {
  const context = await browser.newContext();
  const page = await setUpFirstOwner(context, site, setupToken);

  await page.goto(`${site}/console/invitations`);
  // Twenty-one planned, one left for later; then all twenty-one.
  await page.getByLabel("How many (the next N)").fill("20");
  await page.getByRole("button", { name: "Plan", exact: true }).click();
  await expect(page.getByRole("status")).toHaveText("20 numbers would be texted, in sign-up order.");
  await expect(page.locator("dt", { hasText: "Left for a later wave" }).locator("+ dd")).toHaveText("1");
  await page.getByLabel("How many (the next N)").fill("21");
  await page.getByRole("button", { name: "Plan", exact: true }).click();
  await expect(page.getByRole("status")).toHaveText("21 numbers would be texted, in sign-up order.");
  await expect(page.locator("dt", { hasText: "Left for a later wave" }).locator("+ dd")).toHaveText("0");
  // Before Send: the text each gets, the pace and the hours, and how long 21 take at 60 a minute.
  await expect(page.locator("blockquote")).toHaveText(smsTexts.invitation(`${site}/i/xxxxxxxxxxxx`));
  await expect(
    page.getByText(
      `Sent 60 a minute, between ${specHours.from}:00 and ${specHours.to}:00 at each number's location: about 1 minute`,
    ),
  ).toBeVisible();

  // A count that is not the plan's: refused in words, nothing queued; the form starts empty again (no URL prepares it).
  await page.getByLabel("The wave's name").fill("launch-1");
  await page.getByLabel(/^Type how many it texts/).fill("20");
  await page.getByRole("button", { name: "Send the wave" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "count" })).toContainText(
    "The count you typed is not how many this plan texts now",
  );
  expect(new URL(page.url()).searchParams.get("name")).toBeNull();
  await expect(page.getByLabel("The wave's name")).toHaveValue("");
  await expect(page.getByLabel(/^Type how many it texts/)).toHaveValue("");
  expect(invited()).toStrictEqual([]);

  // A viewer's send: 403, nothing queued.
  const link = /(http:\/\/localhost:\d+\/console\/enrol\/[\w-]{43})/.exec(
    await run("operators", "add", "helper@example.com", "--role", "viewer"),
  )![1]!;
  const viewerContext = await browser.newContext();
  const viewer = await withAuthenticator(viewerContext);
  await viewer.page.goto(link);
  await pressCeremony(viewer.page, "Register a passkey");
  await expect(viewer.page).toHaveURL(`${site}/console`, { timeout: CEREMONY_MS });
  const refused = await viewerContext.request.post(`${site}/console/invitations/send`, {
    form: { plan: "next", next: "21", name: "viewer-wave", count: "21" },
    headers: { Origin: site },
    maxRedirects: 0,
  });
  expect(refused.status()).toBe(403);

  await page.getByLabel("The wave's name").fill("launch-1");
  await page.getByLabel(/^Type how many it texts/).fill("21");
  await page.getByRole("button", { name: "Send the wave" }).click();
  await expect(page.getByRole("status").first()).toContainText("Wave launch-1 queued: 21 invitations.");
  // What the banner says is the database's: a count forged into the address changes nothing.
  await page.goto(`${page.url()}&queued=5000`);
  await expect(page.getByRole("status").first()).toContainText("Wave launch-1 queued: 21 invitations.");
  // The last of them texts STOP while the wave waits its turn: Twilio posts it to n8n, n8n calls the site.
  await textStop(phones[20]!);
  // n8n answers Twilio first and calls the site's revoke route after: recorded within the wave's first 20 s, before
  // the last number's turn (a failure here is the STOP's trip, not the wave).
  const siteDb = testDatabase({ dataDir });
  try {
    await expect
      .poll(
        async () =>
          (
            await siteDb
              .selectFrom("consent_standings")
              .select("state")
              .where("phone", "=", phones[20]!)
              .executeTakeFirst()
          )?.state,
        { timeout: 20_000 },
      )
      .toBe("revoked");
  } finally {
    await siteDb.destroy();
  }
  // A viewer's cancel: 403, and the wave goes on (every one below texted).
  const cancelled = await viewerContext.request.post(`${site}/console/invitations/cancel`, {
    form: { name: "launch-1" },
    headers: { Origin: site },
    maxRedirects: 0,
  });
  expect(cancelled.status()).toBe(403);
  await viewerContext.close();

  const launch = await textedReaches(page, "launch-1", 20, 120_000);
  await expect(launch.locator("tr", { hasText: "skipped: consent revoked" }).locator("td").last()).toHaveText("1");
  // Each of the twenty texted once by Twilio; the chef who texted STOP, never.
  expect(invited().sort()).toStrictEqual(phones.slice(0, 20).sort());
  // The wave's page: who it texts, each with their invitation in words.
  await launch.getByRole("link", { name: "Who it texts, and how each went" }).click();
  const recipients = page.getByRole("region", { name: "Wave launch-1's recipients" }).getByRole("row");
  await expect(recipients).toHaveCount(22);
  await expect(recipients.filter({ hasText: phones[20]! })).toContainText("skipped");
  await expect(recipients.filter({ hasText: phones[0]! })).toContainText("texted");

  // The activity log: the wave, its count, who sent it; no number.
  await page.goto(`${site}/console/activity`);
  const sent = page.locator("tbody tr").filter({ hasText: "wave sent" });
  await expect(sent).toHaveCount(1);
  await expect(sent).toContainText("launch-1");
  await expect(sent).toContainText("founder@example.com");
  await expect(sent.locator("td").last()).toHaveText("21");
  expect(await page.locator("main").textContent()).not.toMatch(
    new RegExp(phones.map((phone) => phone.slice(2)).join("|")),
  );
  ownerState = await context.storageState();
  await context.close();
});

test("with JavaScript off, an owner sends a wave of 3 that reaches texted 3; a name used already, a count that no longer matches and a cancelled wave sent again are each refused in words and queue nothing", async ({
  browser,
}) => {
  // Three more chefs after the first wave; a fourth comes while the owner reads a plan.
  const later = Array.from({ length: 4 }, (_, index) => numberUnder(zone.prefix, 721 + index));
  const signUp = async (index: number) => {
    const posted = await postSignupWithoutScript(
      `http://127.0.0.1:${new URL(site).port}`,
      { phone: later[index]!, name: "Chef", consent: "on" },
      { "x-forwarded-for": `10.77.1.${index + 1}` },
    );
    expect(posted.url).toBe("/sent/waitlist");
  };
  for (const index of [0, 1, 2]) await signUp(index);
  const context = await browser.newContext({ javaScriptEnabled: false, storageState: ownerState });
  const page = await context.newPage();
  const waves = page.locator("section", { has: page.getByRole("heading", { name: "Waves" }) }).locator("article");
  // The plan form is a GET: its "everyone" is the address it leads to (Playwright's selectOption hung here with
  // JavaScript off); the next N is typed and posted as a visitor does.
  const plan = async (who: "next" | "all", next = "") => {
    if (who === "all") return void (await page.goto(`${site}/console/invitations?plan=all`));
    // From the page without a plan, where "Who" is the next N.
    await page.goto(`${site}/console/invitations`);
    await page.getByLabel("How many (the next N)").fill(next);
    await page.getByRole("button", { name: "Plan", exact: true }).click();
  };
  const send = async (name: string, count: string) => {
    await page.getByLabel("The wave's name").fill(name);
    await page.getByLabel(/^Type how many it texts/).fill(count);
    await page.getByRole("button", { name: "Send the wave" }).click();
  };
  const refusal = page.getByRole("main").getByRole("alert");
  const texted = invited().length;

  await plan("next", "3");
  await expect(page.getByRole("status")).toHaveText("3 numbers would be texted, in sign-up order.");
  // A name used already.
  await send("launch-1", "3");
  await expect(refusal).toHaveText("A wave of that name exists already: a name is used once. Nothing was queued.");
  await expect(waves).toHaveCount(1);

  // A count that no longer matches: everyone was three when planned, four by the time the owner sends.
  await plan("all");
  await expect(page.getByRole("status")).toHaveText("3 numbers would be texted, in sign-up order.");
  await signUp(3);
  await send("launch-2", "3");
  await expect(refusal).toContainText("The count you typed is not how many this plan texts now");
  await expect(page.getByRole("status")).toHaveText("4 numbers would be texted, in sign-up order.");
  await expect(waves).toHaveCount(1);
  expect(invited()).toHaveLength(texted);

  // The wave of 3, to its end.
  await plan("next", "3");
  await send("launch-2", "3");
  await expect(page.getByRole("status").first()).toContainText("Wave launch-2 queued: 3 invitations.");
  await textedReaches(page, "launch-2", 3, 60_000);
  expect(invited().slice(texted).sort()).toStrictEqual(later.slice(0, 3).sort());

  // Cancelled once it has all gone, it says it stopped none; sent again under its name, it is refused.
  // Posted as the cancel button would (it is shown only while a wave has something left to send).
  const cancelled = await context.request.post(`${site}/console/invitations/cancel`, {
    form: { name: "launch-2" },
    headers: { Origin: site },
  });
  expect(cancelled.status()).toBe(200);
  await page.goto(cancelled.url());
  await expect(page.getByRole("status")).toHaveText(
    /^Wave launch-2 cancelled \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC: 0 invitations not sent; 0 already on their way still go\.$/,
  );
  await plan("next", "1");
  await expect(page.getByRole("status")).toHaveText("1 number would be texted, in sign-up order.");
  await send("launch-2", "1");
  await expect(refusal).toHaveText("A wave of that name exists already: a name is used once. Nothing was queued.");
  await expect(waves).toHaveCount(2);
  expect(invited()).toHaveLength(texted + 3);
  expect(invited()).not.toContain(later[3]);

  // The activity: the wave sent with its count, its cancel with none; no number.
  await page.goto(`${site}/console/activity`);
  await expect(page.locator("tbody tr").filter({ hasText: "wave sent" }).filter({ hasText: "launch-2" })).toHaveCount(
    1,
  );
  await expect(
    page.locator("tbody tr").filter({ hasText: "wave cancelled" }).filter({ hasText: "launch-2" }).locator("td").last(),
  ).toHaveText("0");
  expect(await page.locator("main").textContent()).not.toMatch(
    new RegExp(later.map((phone) => phone.slice(2)).join("|")),
  );
  await context.close();
});

test("each invitation's link is the site's own: previews, a HEAD and unknown codes count nothing, a phone's browser counts once and lands on INVITE_URL with its code, and the console reads Texted 3, Opened 1, Stopped 1", async ({
  browser,
}) => {
  // The fourth chef of the test before, and two more.
  const chefs = [numberUnder(zone.prefix, 724), numberUnder(zone.prefix, 725), numberUnder(zone.prefix, 726)];
  for (const [index, phone] of chefs.slice(1).entries()) {
    const posted = await postSignupWithoutScript(
      `http://127.0.0.1:${new URL(site).port}`,
      { phone, name: "Chef", consent: "on" },
      { "x-forwarded-for": `10.77.2.${index + 1}` },
    );
    expect(posted.url).toBe("/sent/waitlist");
  }
  const context = await browser.newContext({ storageState: ownerState });
  const page = await context.newPage();
  await page.goto(`${site}/console/invitations?plan=next&next=3`);
  await page.getByLabel("The wave's name").fill("launch-3");
  await page.getByLabel(/^Type how many it texts/).fill("3");
  await page.getByRole("button", { name: "Send the wave" }).click();
  await expect(page.getByRole("status").first()).toContainText("Wave launch-3 queued: 3 invitations.");
  await textedReaches(page, "launch-3", 3, 60_000);

  // Each text's link: on the site's host, one of its own.
  const linkTo = (phone: string) =>
    twilio
      .accepted()
      .filter((message) => message.to === phone)
      .map((message) => invitationLinkOf(message.body, site))
      .find(Boolean)!;
  const links = chefs.map(linkTo);
  expect(links.every((link) => link?.startsWith(`${site}/i/`))).toBe(true);
  expect(new Set(links).size).toBe(3);

  // As the messaging app fetches a preview when the text arrives: answered, never counted.
  const iMessage =
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0";
  for (const link of links) {
    const preview = await fetch(link, { headers: { "user-agent": iMessage }, redirect: "manual" });
    expect(preview.status).toBe(303);
  }
  const phone =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
  const head = await fetch(links[1]!, { method: "HEAD", headers: { "user-agent": phone }, redirect: "manual" });
  expect(head.status).toBe(303);
  // A code nobody was sent, and the code of the first wave's invitation skipped for a STOP: the site's unknown page.
  const siteDb = testDatabase({ dataDir });
  let skippedCode: string;
  let firstChef: string;
  try {
    firstChef = (
      await siteDb
        .selectFrom("invitations")
        .select("consent_id")
        .where("phone", "=", chefs[0]!)
        .executeTakeFirstOrThrow()
    ).consent_id;
    const skipped = await siteDb
      .selectFrom("invitations")
      .select("code")
      .where("phone", "=", phones[20]!)
      .executeTakeFirst();
    skippedCode = skipped!.code!;
  } finally {
    await siteDb.destroy();
  }
  for (const code of ["AAAAAAAAAAAA", skippedCode]) {
    const unknown = await fetch(`${site}/i/${code}`, { headers: { "user-agent": phone }, redirect: "manual" });
    expect(unknown.status, code).toBe(404);
    expect(await unknown.text()).toContain("<main");
  }

  // The first chef opens it twice in their phone's browser: sent on to INVITE_URL with the code, counted once. That
  // host is not reached from here: the browser's request to it is what shows where the link led.
  const phoneContext = await browser.newContext({ userAgent: phone });
  const chef = await phoneContext.newPage();
  const code = links[0]!.slice(`${site}/i/`.length);
  for (let open = 0; open < 2; open += 1) {
    const [landing] = await Promise.all([
      chef.waitForRequest((request) => request.url().startsWith(new URL(inviteLink).origin)),
      chef.goto(links[0]!).catch(() => undefined),
    ]);
    expect(landing.url()).toBe(`${inviteLink}?invite=${code}`);
    expect(landing.redirectedFrom()?.url()).toBe(links[0]);
  }
  await phoneContext.close();

  // The third texts STOP, through Twilio and the workflow, after their invitation.
  await textStop(chefs[2]!);

  const row = page.getByRole("row", { name: /^launch-3 / });
  await expect(async () => {
    await page.goto(`${site}/console/invitations`);
    await expect(row.getByRole("cell")).toHaveText(["3", "3", "1", "1", "0"], { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  const header = page.getByRole("table", { name: /How each wave went/ }).getByRole("columnheader");
  await expect(header).toHaveText(["Wave", "Queued", "Texted", "Opened", "Stopped", "Failed"]);

  // The first chef's page: texted and opened times.
  await page.goto(`${site}/console/chefs/${firstChef}`);
  const invitation = page.locator("section", { has: page.locator("#invitation") });
  for (const fact of ["Texted", "Opened"])
    await expect(invitation.locator("dt", { hasText: fact }).locator("+ dd")).toHaveText(
      /^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC$/,
    );
  const status = JSON.parse(await run("invite", "status", "--wave", "launch-3", "--json"));
  expect(status.response).toStrictEqual({ queued: 3, texted: 3, opened: 1, stopped: 1, failed: 0 });
  await context.close();
});

test("a chef whose welcome the carrier refused (21614) reads “refused: not a mobile number” on the waitlist and their page, and the next wave leaves them out and lists them", async ({
  browser,
}) => {
  const landline = numberUnder(zone.prefix, 727);
  const mobile = numberUnder(zone.prefix, 728);
  twilio.refuse(landline, 21614);
  for (const [index, phone] of [landline, mobile].entries()) {
    const posted = await postSignupWithoutScript(
      `http://127.0.0.1:${new URL(site).port}`,
      { phone, name: "Chef", consent: "on" },
      { "x-forwarded-for": `10.77.3.${index + 1}` },
    );
    expect(posted.url).toBe("/sent/waitlist");
  }
  const context = await browser.newContext({ javaScriptEnabled: false, storageState: ownerState });
  const page = await context.newPage();
  const welcomeOf = (phone: string) => page.locator("tbody tr", { hasText: phone }).locator("td").nth(5);
  await page.goto(`${site}/console/waitlist`);
  await expect(page.locator("thead th").nth(5)).toHaveText("Welcome");
  await expect(welcomeOf(landline)).toHaveText("refused: not a mobile number");
  await expect(welcomeOf(mobile)).toHaveText("texted");
  await page.getByLabel("Welcome").selectOption("refused");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.locator("tbody tr")).toHaveText([new RegExp(landline.replace("+", "\\+"))]);
  await page.locator("tbody tr a").click();
  await expect(page.locator("dt", { hasText: "Welcome" }).locator("+ dd").first()).toHaveText(
    "refused: not a mobile number",
  );

  // The next wave: the mobile number; the landline left out, and listed with why.
  await page.goto(`${site}/console/invitations?plan=all`);
  await expect(page.getByRole("status")).toHaveText("1 number would be texted, in sign-up order.");
  await expect(page.locator("dt", { hasText: "Welcome not texted" }).locator("+ dd")).toHaveText("1");
  await expect(page.locator("details", { hasText: "Whose welcome was not texted" }).locator("li")).toHaveText(
    `${landline}: refused`,
  );
  await page.getByLabel("The wave's name").fill("launch-4");
  await page.getByLabel(/^Type how many it texts/).fill("1");
  await page.getByRole("button", { name: "Send the wave" }).click();
  await expect(page.getByRole("status").first()).toContainText("Wave launch-4 queued: 1 invitation.");
  await textedReaches(page, "launch-4", 1, 60_000);
  expect(invited()).toContain(mobile);
  expect(invited()).not.toContain(landline);
  await context.close();
});
