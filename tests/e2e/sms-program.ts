import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { smsTexts } from "@/lib/sms/program";
import { webhookPaths, workflowFile, workflowIds } from "@/workflows/n8n/build";
import { postIncomingSms, startFakeTwilio, type FakeTwilio } from "../support/fake-twilio";
import { startN8n, type N8nServer } from "../support/n8n-server";
import { postSignupWithoutScript, startNextServer } from "../support/next-server";
import { freePort, type Started } from "../support/processes";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { newWebhookSecret } from "../support/webhook-secrets";
import { SignupFormPage } from "./pages/signup-form";
import { expect, test } from "./fixtures";

// The SMS program end to end: the site built for the e2e run, a real n8n 1.x
// with workflows/n8n/sms-program.json imported as an operator would, and a
// fake Twilio on 127.0.0.1 standing in for the API this machine cannot reach.
// Outages and retries take tens of seconds; the first run also installs n8n (beforeAll has its own timeout).
test.describe.configure({ mode: "serial", timeout: 120_000 });
test.use({
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  },
});

const waitlistSecret = newWebhookSecret();
// Two consent secrets, as during a rotation: the site holds the new one only, and still records the STOP.
const consentSecrets = { old: newWebhookSecret(), current: newWebhookSecret() };
const inboundUrl = "https://n8n.sous.test/webhook/sous-sms-inbound";
const supportEmail = "help@sous.test";
const twilioFrom = "+15005550006";

let twilio: FakeTwilio;
let alerts: WebhookReceiver;
let n8n: N8nServer;
let site: Started;
let sitePort: number;
let dataDir: string;

const siteSettings = () => ({
  WAITLIST_WEBHOOK_URL: n8n.webhookUrl(webhookPaths.welcome),
  WAITLIST_WEBHOOK_SECRET: waitlistSecret,
  CONSENT_WEBHOOK_SECRET: consentSecrets.current,
  DATA_DIR: dataDir,
  // Redelivered every two seconds for half a minute: long enough for a test to end an outage.
  REDELIVERY_SCHEDULE_SECONDS: Array(15).fill("2").join(","),
  REDELIVERY_POLL_MS: "200",
  RATE_LIMIT_FORM_POINTS: "1000",
  RATE_LIMIT_PHONE_POINTS: "1000",
  RATE_LIMIT_WAITLIST_PER_MINUTE: "1000",
});

async function startSite() {
  site = await startNextServer(siteSettings(), sitePort);
  await expect.poll(() => site.output(), { timeout: 30_000 }).toContain('"event":"database_ready"');
}

test.beforeAll(async () => {
  // The first run installs n8n from npm into a cache folder (3 to 5 minutes).
  test.setTimeout(20 * 60_000);
  twilio = await startFakeTwilio();
  alerts = await startWebhookReceiver();
  dataDir = await mkdtemp(path.join(tmpdir(), "sous-sms-"));
  sitePort = await freePort();
  n8n = await startN8n(workflowFile, Object.values(workflowIds), {
    SOUS_WEBHOOK_SECRETS: waitlistSecret,
    SOUS_SITE_URL: `http://127.0.0.1:${sitePort}`,
    CONSENT_WEBHOOK_SECRET: `${consentSecrets.old} ${consentSecrets.current}`,
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM: twilioFrom,
    TWILIO_API_BASE: twilio.url,
    TWILIO_INBOUND_URL: inboundUrl,
    SOUS_SUPPORT_EMAIL: supportEmail,
    SOUS_ALERT_WEBHOOK_URL: `${alerts.url}/alerts`,
    // The default waits minutes between attempts; these tests wait seconds.
    SOUS_REVOKE_RETRY_SECONDS: "1 2 3 4",
  });
  await startSite();
});

test.afterEach(() => twilio.mode({ kind: "accept" }));

test.afterAll(async () => {
  await site?.stop();
  await n8n?.stop();
  await twilio?.close();
  await alerts?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

let counter = 0;
/** A chef of this run: a name and a number no other test uses, typed as a visitor would. */
function chef() {
  counter += 1;
  const line = String(1000 + counter + (process.pid % 5000) * 10).slice(-4);
  return { name: `Chef ${counter}`, phone: `(503) 555-${line}`, e164: `+1503555${line}` };
}

const textsTo = (e164: string) => twilio.accepted().filter((message) => message.to === e164);
const callsFor = (e164: string) => twilio.calls.filter((call) => call.fields.To === e164);

/** The operator's command, run with the site's settings. */
async function consentShow(phone: string) {
  const { stdout } = await promisify(execFile)("npm", ["run", "--silent", "consent", "--", "show", phone], {
    env: { ...process.env, ...siteSettings() },
  });
  return stdout;
}
const consentInForce = async (phone: string) => (await consentShow(phone)).match(/Consent in force: (yes|no)/)?.[1];

/** Where the number's sign-ups stand, as the operator finds out: their ids from its consent records, their states from the leads. */
async function stateOf(phone: string) {
  const ids = [...(await consentShow(phone)).matchAll(/^\s+lead\s+(\S+)$/gm)].map((match) => match[1]);
  const { stdout } = await promisify(execFile)(
    "npm",
    ["run", "--silent", "leads", "--", "list", "--json", "--state", "all"],
    {
      env: { ...process.env, ...siteSettings() },
    },
  );
  return (JSON.parse(stdout) as Array<{ id: string; state: string }>)
    .filter((lead) => ids.includes(lead.id))
    .map((lead) => lead.state);
}

async function signUpWithoutScript(person: { name: string; phone: string }) {
  const { html } = await postSignupWithoutScript(
    site.url,
    { name: person.name, phone: person.phone, consent: "on" },
    { "x-forwarded-for": `198.51.100.${counter % 250}` },
  );
  return html;
}

async function signUpInBrowser(browser: Browser, person: { name: string; phone: string }, javaScriptEnabled: boolean) {
  const context = await browser.newContext({
    javaScriptEnabled,
    extraHTTPHeaders: { "x-forwarded-for": `198.51.100.${counter % 250}` },
  });
  const page = await context.newPage();
  await page.goto(`${site.url}/signup`);
  const form = new SignupFormPage(page);
  await form.fill({ ...person, consent: true });
  await form.submit.click();
  await expect(page.getByText(waitlistMessages.success.text)).toBeVisible();
  await context.close();
}

/** A delivery signed the way the site signs it. */
function signedDelivery(body: string, id: string, secret = waitlistSecret, at = new Date()) {
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
}
const deliver = (body: string, headers: Record<string, string>, signal?: AbortSignal) =>
  fetch(n8n.webhookUrl(webhookPaths.welcome), { method: "POST", body, headers, signal });

const incoming = (fields: { From: string; Body: string; OptOutType?: string }, signature?: string) =>
  postIncomingSms(inboundUrl, n8n.webhookUrl(webhookPaths.incoming), fields, {
    authToken: twilio.authToken,
    accountSid: twilio.accountSid,
    signature,
  });

const emptyTwiml = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

test.describe("the welcome text", () => {
  for (const javaScriptEnabled of [true, false]) {
    test(`a chef who signs up on /signup with JavaScript ${javaScriptEnabled ? "on" : "off"} gets exactly one welcome text`, async ({
      browser,
    }) => {
      const person = chef();
      await signUpInBrowser(browser, person, javaScriptEnabled);

      expect(textsTo(person.e164)).toEqual([{ to: person.e164, from: twilioFrom, body: smsTexts.welcome }]);
      expect(smsTexts.welcome.length).toBeLessThanOrEqual(160);
      expect(callsFor(person.e164).every((call) => call.authorized)).toBe(true);
      expect(await stateOf(person.phone)).toEqual(["delivered"]);
    });
  }

  test("a delivery sent again under the same webhook-id is not texted twice", async () => {
    const person = chef();
    const body = JSON.stringify({ phone: person.e164, name: person.name });
    const id = `msg_replay_${counter}`;

    const first = await deliver(body, signedDelivery(body, id));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ texted: true });
    const again = await deliver(body, signedDelivery(body, id));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ texted: true, duplicate: true });

    expect(textsTo(person.e164)).toHaveLength(1);
  });

  test("a delivery with a wrong secret, a stale timestamp or no signature gets 401 and texts no one; the same signed well is texted", async () => {
    const person = chef();
    const body = JSON.stringify({ phone: person.e164, name: person.name });
    const wrong = await deliver(body, signedDelivery(body, "msg_wrong_secret", newWebhookSecret()));
    const stale = await deliver(
      body,
      signedDelivery(body, "msg_stale", waitlistSecret, new Date(Date.now() - 6 * 60_000)),
    );
    const unsigned = await deliver(body, { "content-type": "application/json" });
    const tampered = await deliver(body.replace(person.name, "Mallory"), signedDelivery(body, "msg_tampered"));
    expect([wrong.status, stale.status, unsigned.status, tampered.status]).toEqual([401, 401, 401, 401]);
    expect(callsFor(person.e164)).toEqual([]);

    const good = await deliver(body, signedDelivery(body, "msg_good_after_bad"));
    expect(good.status).toBe(200);
    expect(textsTo(person.e164)).toHaveLength(1);
  });

  test("while Twilio answers 503 the chef hears of an error and gets no text; the site's redelivery texts them exactly once when it is back", async () => {
    const person = chef();
    twilio.mode({ kind: "error", status: 503, code: 20503 });
    expect(await signUpWithoutScript(person)).toContain(waitlistMessages.failure.text);
    expect(callsFor(person.e164).length).toBeGreaterThan(0);
    expect(textsTo(person.e164)).toEqual([]);
    expect(await stateOf(person.phone)).toEqual(["pending"]);

    twilio.mode({ kind: "accept" });
    await expect.poll(async () => stateOf(person.phone), { timeout: 30_000 }).toEqual(["delivered"]);
    expect(textsTo(person.e164)).toEqual([{ to: person.e164, from: twilioFrom, body: smsTexts.welcome }]);
  });

  test("when Twilio hangs, the workflow answers 503 before the site's attempt timeout (4 s)", async () => {
    const person = chef();
    const body = JSON.stringify({ phone: person.e164, name: person.name });
    twilio.mode({ kind: "hang" });
    // Aborted as the site aborts an attempt: an answer after it would never be heard.
    const answered = await deliver(body, signedDelivery(body, `msg_hang_${counter}`), AbortSignal.timeout(4_000));
    expect(answered.status).toBe(503);
    expect(await answered.json()).toMatchObject({ texted: false, error: "twilio_unreachable" });
    expect(callsFor(person.e164)).toHaveLength(1);
  });

  test("Twilio refusing the account's credentials is the operator's fault: 503, so the site redelivers", async () => {
    const person = chef();
    const body = JSON.stringify({ phone: person.e164, name: person.name });
    twilio.mode({ kind: "error", status: 401, code: 20003 });
    const answered = await deliver(body, signedDelivery(body, `msg_creds_${counter}`));
    expect(answered.status).toBe(503);
    expect(await answered.json()).toMatchObject({ texted: false, error: "twilio_refused", twilioStatus: 401 });
  });

  test("Twilio refusing the number (21211) answers 2xx with texted: false, and the site's lead is delivered, not retried", async () => {
    const person = chef();
    twilio.mode({ kind: "error", status: 400, code: 21211 });
    expect(await signUpWithoutScript(person)).toContain(waitlistMessages.success.text.replaceAll("'", "&#x27;"));
    expect(await stateOf(person.phone)).toEqual(["delivered"]);
    // A redelivery pass would have come within the schedule's two seconds; none did.
    twilio.mode({ kind: "accept" });
    const other = chef();
    expect(await signUpWithoutScript(other)).toContain(waitlistMessages.success.text.replaceAll("'", "&#x27;"));
    expect(textsTo(other.e164)).toHaveLength(1);
    expect(callsFor(person.e164)).toHaveLength(1);
    expect(textsTo(person.e164)).toEqual([]);
  });
});

test.describe("replies from chefs", () => {
  test('a signed "Stop" and a signed "stop texting me" revoke consent, as `npm run consent -- show` says', async () => {
    const first = chef();
    const second = chef();
    await signUpWithoutScript(first);
    await signUpWithoutScript(second);
    expect(await consentInForce(first.phone)).toBe("yes");
    expect(await consentInForce(second.phone)).toBe("yes");

    for (const [person, text] of [
      [first, "Stop"],
      [second, "stop texting me"],
    ] as const) {
      const reply = await incoming({ From: person.e164, Body: text });
      expect(reply.status).toBe(200);
      expect(reply.contentType).toContain("text/xml");
      expect(reply.text).toBe(emptyTwiml);
    }
    await expect.poll(() => consentInForce(first.phone), { timeout: 30_000 }).toBe("no");
    await expect.poll(() => consentInForce(second.phone), { timeout: 30_000 }).toBe("no");
    expect(alerts.received).toEqual([]);
  });

  test("a STOP from a chef whose sign-up is still pending means it is never sent, while another pending sign-up is", async () => {
    const stopping = chef();
    const waiting = chef();
    twilio.mode({ kind: "error", status: 503, code: 20503 });
    await signUpWithoutScript(stopping);
    await signUpWithoutScript(waiting);
    expect(await stateOf(stopping.phone)).toEqual(["pending"]);
    expect(await stateOf(waiting.phone)).toEqual(["pending"]);

    expect((await incoming({ From: stopping.e164, Body: "UNSUBSCRIBE please" })).text).toBe(emptyTwiml);
    await expect.poll(() => consentInForce(stopping.phone), { timeout: 30_000 }).toBe("no");
    twilio.mode({ kind: "accept" });

    await expect.poll(() => textsTo(waiting.e164).length, { timeout: 30_000 }).toBe(1);
    await expect.poll(() => stateOf(waiting.phone), { timeout: 30_000 }).toEqual(["delivered"]);
    expect(await stateOf(stopping.phone)).toEqual(["revoked"]);
    expect(textsTo(stopping.e164)).toEqual([]);
  });

  test("a STOP while the site is down for a moment is recorded once it is back; with the site down for good the operator is alerted, without the number", async () => {
    const brief = chef();
    const lasting = chef();
    await signUpWithoutScript(brief);
    await signUpWithoutScript(lasting);

    await site.stop();
    expect((await incoming({ From: brief.e164, Body: "STOP!!" })).text).toBe(emptyTwiml);
    await startSite();
    await expect.poll(() => consentInForce(brief.phone), { timeout: 30_000 }).toBe("no");
    expect(alerts.received).toEqual([]);

    await site.stop();
    try {
      expect((await incoming({ From: lasting.e164, Body: "End." })).text).toBe(emptyTwiml);
      await expect.poll(() => alerts.received.length, { timeout: 40_000 }).toBe(1);
    } finally {
      await startSite();
    }
    const alert = alerts.received[0]!;
    expect(alert.json).toEqual({ text: expect.stringContaining("a STOP reply could not be recorded") });
    for (const spelling of [lasting.e164, lasting.e164.slice(2), lasting.phone, lasting.e164.slice(-4)])
      expect(alert.body).not.toContain(spelling);
    expect(await consentInForce(lasting.phone)).toBe("yes");
  });

  test("a forged STOP gets 403 and changes nothing; the same STOP signed by Twilio is recorded", async () => {
    const person = chef();
    await signUpWithoutScript(person);
    const forged = await incoming({ From: person.e164, Body: "STOP" }, "bm90IGEgc2lnbmF0dXJlIGZyb20gVHdpbGlv");
    expect(forged.status).toBe(403);
    const unsigned = await postIncomingSms(inboundUrl, n8n.webhookUrl(webhookPaths.incoming), {
      From: person.e164,
      Body: "STOP",
    });
    expect(unsigned.status).toBe(403);
    expect(await consentInForce(person.phone)).toBe("yes");

    expect((await incoming({ From: person.e164, Body: "STOP" })).status).toBe(200);
    await expect.poll(() => consentInForce(person.phone), { timeout: 30_000 }).toBe("no");
  });

  test("HELP and INFO get the HELP text with the support email; START and hello get empty TwiML and record nothing; with SOUS_HELP_REPLY=off HELP gets none", async () => {
    const person = chef();
    await signUpWithoutScript(person);
    const helpText = smsTexts.help(supportEmail);
    const helpTwiml = `<?xml version="1.0" encoding="UTF-8"?><Response><Message>${helpText.replaceAll("&", "&amp;").replaceAll("'", "&apos;")}</Message></Response>`;
    for (const text of ["HELP", "info"])
      expect((await incoming({ From: person.e164, Body: text })).text).toBe(helpTwiml);
    for (const text of ["START", "hello"])
      expect((await incoming({ From: person.e164, Body: text })).text).toBe(emptyTwiml);
    expect(await consentInForce(person.phone)).toBe("yes");
    expect(await consentShow(person.phone)).toContain("1 consent record, 0 revocations");

    await n8n.restart({ SOUS_HELP_REPLY: "off" });
    try {
      const reply = await incoming({ From: person.e164, Body: "HELP" });
      expect(reply.status).toBe(200);
      expect(reply.text).toBe(emptyTwiml);
    } finally {
      await n8n.restart({ SOUS_HELP_REPLY: "on" });
    }
  });
});
