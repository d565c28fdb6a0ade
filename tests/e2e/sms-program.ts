import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser } from "@playwright/test";
import type { Kysely } from "kysely";
import { Webhook } from "standardwebhooks";
import { contactMessages } from "@/lib/forms/contact";
import { phoneOfAnySpelling } from "@/lib/forms/phone";
import { waitlistMessages } from "@/lib/forms/waitlist";
import type { Database } from "@/server/db/schema";
import { smsTexts, startAgainNote } from "@/lib/sms/program";
import { webhookPaths, workflowFile, workflowIds } from "@/workflows/n8n/build";
import { postIncomingSms, startFakeTwilio, type FakeTwilio } from "../support/fake-twilio";
import { docWorkflow, writeDocWorkflow } from "../support/doc-verification";
import { startCaddyExample, startNginxExample } from "../support/proxy-examples";
import { startN8n, testOwner, type N8nLine, type N8nServer } from "../support/n8n-server";
import { invitationCounts, invitationLinkOf, testDatabase } from "../support/lead-rows";
import { postSignupWithoutScript, startNextServer } from "../support/next-server";
import { numberUnder, openPrefix, specCountries, specHours, splitHours } from "../support/open-zone";
import { stablePort, type Started } from "../support/processes";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { newWebhookSecret } from "../support/webhook-secrets";
import { ContactFormPage } from "./pages/contact-form";
import { SignupFormPage } from "./pages/signup-form";
import { expect, test } from "./fixtures";
import { untilHydrated } from "./hydration";

// The SMS program end to end: the site built for the e2e run, a real n8n
// with workflows/n8n/sms-program.json imported and published as an operator
// does it, and a fake Twilio on 127.0.0.1 standing in for the API this
// machine cannot reach. One body, run on each line of n8n the program
// supports, in two parts (sms-workflow-n8n*-texts.server.spec.ts and
// sms-workflow-n8n*-launch.server.spec.ts): every title names the line.
// Outages and retries take tens of seconds; the first run also installs n8n
// (beforeAll has its own timeout).

const waitlistSecret = newWebhookSecret();
const inviteSecret = newWebhookSecret();
const inviteLink = "https://sous.test/start";
const contactSecret = newWebhookSecret();
// Two consent secrets, as during a rotation: the site holds the new one only, and still records the STOP.
const consentSecrets = { old: newWebhookSecret(), current: newWebhookSecret() };
const inboundUrl = "https://n8n.sous.test/webhook/sous-sms-inbound";
const supportEmail = "help@sous.test";
const twilioFrom = "+15005550006";
// n8n 2.x stops any Code node task after this long (1.x runs Code nodes in its own process and has no such limit):
// the least docs/sms-workflow.md supports, since a task may make two calls of up to 8 s and 5 s.
const taskTimeoutSeconds = 20;
// Seconds between the revoke call's attempts: 39 s in all, so that a site down for 21 s (longer than the task time
// limit) has 18 s to start again before the last attempt: with 31 s of attempts and 25 s down it had 6, little for
// a start beside two other workers.
const revokeRetrySeconds = "1 2 4 8 8 8 8";

let twilio: FakeTwilio;
let alerts: WebhookReceiver;
let chat: WebhookReceiver;
let n8n: N8nServer;
let site: Started;
/** Known to n8n before the site first starts on it, and kept through the site's restarts: no other test process is given it. */
let sitePort: number;
let dataDir: string;

const siteSettings = () => ({
  WAITLIST_WEBHOOK_URL: n8n.webhookUrl(webhookPaths.welcome),
  WAITLIST_WEBHOOK_SECRET: waitlistSecret,
  CONTACT_WEBHOOK_URL: n8n.webhookUrl(webhookPaths.contact),
  CONTACT_WEBHOOK_SECRET: contactSecret,
  CONSENT_WEBHOOK_SECRET: consentSecrets.current,
  INVITE_WEBHOOK_URL: n8n.webhookUrl(webhookPaths.invitations),
  INVITE_WEBHOOK_SECRET: inviteSecret,
  INVITE_URL: inviteLink,
  SITE_URL: `http://127.0.0.1:${sitePort}`,
  INVITE_HOURS: `${specHours.from}-${specHours.to}`,
  INVITE_PER_MINUTE: "60",
  // The invitation specs' numbers come from whichever zone is inside the hours when they run.
  WAITLIST_PHONE_COUNTRIES: specCountries,
  DATA_DIR: dataDir,
  // Redelivered every two seconds for half a minute: long enough for a test to end an outage.
  REDELIVERY_SCHEDULE_SECONDS: Array(15).fill("2").join(","),
  REDELIVERY_POLL_MS: "200",
  RATE_LIMIT_FORM_POINTS: "1000",
  RATE_LIMIT_PHONE_POINTS: "1000",
  RATE_LIMIT_EMAIL_POINTS: "1000",
  RATE_LIMIT_WAITLIST_PER_MINUTE: "1000",
});

async function startSite(more: Record<string, string> = {}) {
  site = await startNextServer({ ...siteSettings(), ...more }, sitePort);
  await expect.poll(() => site.output(), { timeout: 30_000 }).toContain('"event":"database_ready"');
}

/** The site restarted with settings added to its own (an operator's change and restart); none: its own again. */
async function restartSite(more: Record<string, string> = {}) {
  await site.stop();
  await startSite(more);
}

// The site's own alerts (ALERT_WEBHOOK_URL) and /api/health's figures (HEALTH_TOKEN), for the specs that set them.
const healthToken = "sous-e2e-health-token-0123456789";
const siteAlerting = () => ({ ALERT_WEBHOOK_URL: `${alerts.url}/site-alerts`, HEALTH_TOKEN: healthToken });
const siteAlerts = () =>
  alerts.received
    .filter((alert) => alert.path === "/site-alerts")
    .map((alert) => alert.json as { kind: string; form: string; text: string });
async function health() {
  const response = await fetch(`${site.url}/api/health`, { headers: { authorization: `Bearer ${healthToken}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The alerts of one kind, told apart by their words. */
const alertsSaying = (words: string) => alerts.received.filter((alert) => alert.body.includes(words));
const stopAlert = "a STOP reply could not be recorded";
const urlAlert = "Twilio signs them for";

/** An execution n8n has not finished yet. */
const finishedNot = (execution: { status: string }) => ["new", "running", "waiting"].includes(execution.status);

/** What a phone number may look like in an alert: none of these may appear. */
function phoneSpellings(person: { phone: string; e164: string }) {
  return [person.e164, person.e164.slice(2), person.phone, person.e164.slice(-7)];
}

/**
 * The program's specs come in two parts, each a spec file of its own per line with its own n8n, site and fake Twilio,
 * so that a line's two parts run side by side in two workers (each mostly waits on real time: n8n restarts, outages,
 * the launch's pace): `texts` (the editor's owner, the welcome text, replies, settings gone wrong, the contact chat,
 * the docs' proxy examples),
 * and `launch` (the outage of n8n, launch invitations, the docs' verification node). Run as one serial file, a line
 * took 6 minutes of one worker, the longest file of either CI line (issue 64).
 */
export type SmsProgramPart = "texts" | "launch";

export function smsProgramSpecs(line: N8nLine, part: SmsProgramPart) {
  test.describe.configure({ mode: "serial", timeout: 120_000 });

  test.beforeAll(async () => {
    // The first run installs n8n from npm into a cache folder (about 5 minutes a line).
    test.setTimeout(25 * 60_000);
    twilio = await startFakeTwilio();
    alerts = await startWebhookReceiver();
    chat = await startWebhookReceiver();
    // A worker may run both parts, one after the other: nothing of the first part's site is reused.
    siteDb = undefined;
    dataDir = await mkdtemp(path.join(tmpdir(), "sous-sms-"));
    sitePort = await stablePort();
    const docFile = writeDocWorkflow(path.join(dataDir, "doc-verification.json"));
    n8n = await startN8n(
      line,
      { files: [workflowFile, docFile], ids: [...Object.values(workflowIds), docWorkflow.id] },
      {
        SOUS_WEBHOOK_SECRETS: waitlistSecret,
        SOUS_INVITE_WEBHOOK_SECRETS: inviteSecret,
        SOUS_CONTACT_WEBHOOK_SECRETS: contactSecret,
        SOUS_CONTACT_CHAT_URL: `${chat.url}/chat`,
        SOUS_SITE_URL: `http://127.0.0.1:${sitePort}`,
        CONSENT_WEBHOOK_SECRET: `${consentSecrets.old} ${consentSecrets.current}`,
        TWILIO_ACCOUNT_SID: twilio.accountSid,
        TWILIO_AUTH_TOKEN: twilio.authToken,
        TWILIO_FROM: twilioFrom,
        TWILIO_API_BASE: twilio.url,
        TWILIO_INBOUND_URL: inboundUrl,
        SOUS_SUPPORT_EMAIL: supportEmail,
        SOUS_ALERT_WEBHOOK_URL: `${alerts.url}/alerts`,
        SOUS_REVOKE_RETRY_SECONDS: revokeRetrySeconds,
        N8N_RUNNERS_TASK_TIMEOUT: String(taskTimeoutSeconds),
        ...line.owner,
      },
    );
    await startSite();
  });

  test.afterEach(() => {
    twilio.mode({ kind: "accept" });
    chat.outage(undefined);
  });

  test.afterAll(async () => {
    if (n8n) {
      const tasks = n8n.executions().flatMap((execution) => execution.codeTaskMs);
      console.log(
        `${line.label}: the longest Code node task of ${tasks.length} ran ${Math.max(0, ...tasks)} ms (task limit ${taskTimeoutSeconds} s)`,
      );
    }
    await siteDb?.destroy();
    await site?.stop();
    await n8n?.stop();
    await twilio?.close();
    await alerts?.close();
    await chat?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  if (part === "texts") {
    ownerSpecs(line);
    welcomeSpecs();
    replySpecs();
    settingSpecs();
    contactSpecs();
    proxySpecs();
  } else {
    outageSpecs();
    invitationSpecs();
    docBlockSpecs();
  }
}

let counter = 0;
/** A chef of this run: a name and a number no other test uses, typed as a visitor would. */
function chef() {
  counter += 1;
  const line = String(1000 + counter + (process.pid % 5000) * 10).slice(-4);
  return { name: `Chef ${counter}`, phone: `(503) 555-${line}`, e164: `+1503555${line}` };
}

const textsTo = (e164: string) => twilio.accepted().filter((message) => message.to === e164);
const callsFor = (e164: string) => twilio.calls.filter((call) => call.fields.To === e164);

/**
 * The site's database, opened as an operator opens it with `sqlite3` (the
 * site made its tables): the looks a spec repeats, and every poll, read it
 * rather than start an `npm run` (about a second of a core each, on CI's two)
 * for each look. What the commands print of the same rows is theirs to test
 * (scripts/consent-command.test.ts, scripts/leads.test.ts), and the specs
 * that name a command run it.
 */
let siteDb: Kysely<Database> | undefined;
const siteDatabase = () => (siteDb ??= testDatabase({ dataDir }));
const e164Of = (phone: string) => phoneOfAnySpelling(phone, "US") ?? phone;

/** The operator's command, run with the site's settings. */
async function consentShow(phone: string) {
  const { stdout } = await promisify(execFile)("npm", ["run", "--silent", "consent", "--", "show", phone], {
    env: { ...process.env, ...siteSettings() },
  });
  return stdout;
}
/** Whether the number's consent is in force, as `npm run consent -- show` says it ("Consent in force: yes"): its standing's row. */
async function consentInForce(phone: string) {
  const standing = await siteDatabase()
    .selectFrom("consent_standings")
    .select("state")
    .where("phone", "=", e164Of(phone))
    .executeTakeFirst();
  return standing?.state === "in force" ? "yes" : "no";
}

/** Where the number's sign-ups stand, as the operator finds out: the leads its consent records name, oldest first. */
async function stateOf(phone: string) {
  const rows = await siteDatabase()
    .selectFrom("outbox")
    .select("state")
    .where("id", "in", (eb) => eb.selectFrom("consents").select("lead_id").where("phone", "=", e164Of(phone)))
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => row.state);
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
  await untilHydrated(form.main.locator("form"));
  await form.fill({ ...person, consent: true });
  await form.submit.click();
  // The site answers once n8n has texted (the site's attempts allow up to 4 s each): the first sign-up after n8n
  // started, under both CI lines' load, took longer than the default 5 s once (f2d1448).
  await expect(page.getByText(waitlistMessages.success.text)).toBeVisible({ timeout: 30_000 });
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
const deliverTo = (pathName: string, body: string, headers: Record<string, string>, signal?: AbortSignal) =>
  fetch(n8n.webhookUrl(pathName), { method: "POST", body, headers, signal });
const deliver = (body: string, headers: Record<string, string>, signal?: AbortSignal) =>
  deliverTo(webhookPaths.welcome, body, headers, signal);

const incoming = (fields: { From: string; Body: string; OptOutType?: string }, signature?: string) =>
  postIncomingSms(inboundUrl, n8n.webhookUrl(webhookPaths.incoming), fields, {
    authToken: twilio.authToken,
    accountSid: twilio.accountSid,
    signature,
  });

const emptyTwiml = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

function welcomeSpecs() {
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

    test("a delivered number signed up again three times without JavaScript, across a restart and on a second instance, is welcomed once", async () => {
      const person = chef();
      expect(await signUpWithoutScript(person)).toContain(waitlistMessages.success.title);
      // The working twin: the first sign-up is texted.
      expect(textsTo(person.e164)).toHaveLength(1);

      expect(await signUpWithoutScript({ ...person, name: `${person.name} again` })).toContain(
        waitlistMessages.success.title,
      );
      await site.stop();
      await startSite();
      expect(await signUpWithoutScript(person)).toContain(waitlistMessages.success.title);
      const second = await startNextServer(siteSettings());
      try {
        const { html } = await postSignupWithoutScript(
          second.url,
          { name: person.name, phone: person.phone, consent: "on" },
          { "x-forwarded-for": "198.51.100.251" },
        );
        expect(html).toContain(waitlistMessages.success.title);
      } finally {
        await second.stop();
      }
      // Past a redelivery pass of both instances: still one welcome, one lead, four consent records naming it.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(textsTo(person.e164)).toHaveLength(1);
      expect(await stateOf(person.phone)).toEqual(["delivered"]);
      const leadIds = [...(await consentShow(person.phone)).matchAll(/^\s+lead\s+(\S+)$/gm)].map((match) => match[1]);
      expect(leadIds).toHaveLength(4);
      expect(new Set(leadIds).size).toBe(1);
    });

    test("a delivery sent again under the same webhook-id is not texted twice: at once as the site redelivers it, or unmarked once the first execution has ended", async () => {
      const person = chef();
      const body = JSON.stringify({ phone: person.e164, name: person.name });
      const id = `msg_replay_${counter}`;
      const lookups = () =>
        twilio.calls.filter(
          (call) => call.method === "GET" && new URL(call.path, twilio.url).searchParams.get("To") === person.e164,
        );

      const first = await deliver(body, signedDelivery(body, id));
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({ texted: true });
      // Sent at once, marked as the site marks every redelivery: the first execution may not have saved its ids yet
      // (its answer goes out before n8n saves the static data), so Twilio's list, or the saved id, answers it.
      const marked = await deliver(body, {
        ...signedDelivery(body, id),
        "sous-redelivery-since": String(Math.floor(Date.now() / 1000) - 10),
      });
      expect(marked.status).toBe(200);
      expect(await marked.json()).toEqual({ texted: true, duplicate: true });
      expect(textsTo(person.e164)).toHaveLength(1);
      expect(lookups().length).toBeLessThanOrEqual(1);

      // Unmarked, the workflow has only its memory: n8n saves the static data before it records the execution's end
      // (hookFunctionsSave), so once no execution is left running the id is remembered, with no lookup.
      await expect.poll(() => n8n.executions().filter(finishedNot).length, { timeout: 20_000 }).toBe(0);
      const asked = lookups().length;
      const again = await deliver(body, signedDelivery(body, id));
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ texted: true, duplicate: true });
      expect(lookups()).toHaveLength(asked);
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

    test("when Twilio hangs, the workflow gives up on it and answers 503", async () => {
      const person = chef();
      const body = JSON.stringify({ phone: person.e164, name: person.name });
      twilio.mode({ kind: "hang" });
      // The workflow's own 2.5 s for Twilio is under the site's 4 s attempt timeout; the unit tests hold that bound
      // (sms-program.test.ts). Here, that the call to a hung Twilio really ends: a workflow with no timeout on it
      // hangs until n8n 2.x's task limit (20 s) and on 1.x for good, and 15 s tells it apart. A 4 s abort here timed
      // out once under a loaded CI run's n8n, whose answer came after its own 2.5 s and the load's delay.
      const answered = await deliver(body, signedDelivery(body, `msg_hang_${counter}`), AbortSignal.timeout(15_000));
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
}

function replySpecs() {
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
      // What the operator's command says of the same rows.
      for (const person of [first, second]) {
        const shown = await consentShow(person.phone);
        expect(shown).toContain("Consent in force: no");
        expect(shown).toMatch(/^revocation \S+/m);
      }
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
      // Twilio takes the other chef's texts again, and only theirs: a post of the
      // stopping chef's lead the site had sent before the STOP was recorded (a pass
      // every 2 s) is out of its hands and may reach Twilio after this line, under
      // load seconds later; answered "texted", it would be recorded delivered, as
      // it should. (Twilio itself refuses a number that texted STOP, error 21610.)
      // What this checks is the site's part: the lead is revoked, and stays so
      // while the passes send the other (seen failing with stopLeads a no-op).
      twilio.accept(waiting.e164);

      await expect.poll(() => textsTo(waiting.e164).length, { timeout: 30_000 }).toBe(1);
      await expect.poll(() => stateOf(waiting.phone), { timeout: 30_000 }).toEqual(["delivered"]);
      expect(await stateOf(stopping.phone)).toEqual(["revoked"]);
      expect(textsTo(stopping.e164)).toEqual([]);
    });

    test(`a STOP while the site is down longer than the task time limit (${taskTimeoutSeconds} s) is answered at once and recorded once it is back, with no task cut short; down past the schedule, one alert without the number and a failed execution`, async () => {
      test.setTimeout(240_000);
      const brief = chef();
      const lasting = chef();
      await signUpWithoutScript(brief);
      await signUpWithoutScript(lasting);

      await site.stop();
      const before = n8n.executions().length;
      const answered = await incoming({ From: brief.e164, Body: "STOP!!" });
      expect(answered.text).toBe(emptyTwiml);
      // The outage is what is tested: longer than any one task may run.
      await new Promise((resolve) => setTimeout(resolve, (taskTimeoutSeconds + 1) * 1000));
      await startSite();
      await expect.poll(() => consentInForce(brief.phone), { timeout: 30_000 }).toBe("no");
      expect(await consentShow(brief.phone)).toContain("1 consent record, 1 revocation");
      const recorded = n8n.executions().slice(before);
      expect(recorded.map((execution) => [execution.workflowId, execution.status])).toEqual([
        [workflowIds.incoming, "success"],
      ]);
      // Several attempts, each its own short task: none was cut short.
      expect(recorded[0]!.codeTaskMs.length).toBeGreaterThan(3);
      expect(alertsSaying(stopAlert)).toEqual([]);

      await site.stop();
      try {
        expect((await incoming({ From: lasting.e164, Body: "End." })).text).toBe(emptyTwiml);
        await expect.poll(() => alertsSaying(stopAlert).length, { timeout: 90_000 }).toBe(1);
      } finally {
        await startSite();
      }
      const alert = alertsSaying(stopAlert)[0]!;
      expect(alert.json).toEqual({ text: expect.stringContaining(stopAlert) });
      for (const spelling of phoneSpellings(lasting)) expect(alert.body).not.toContain(spelling);
      expect(await consentInForce(lasting.phone)).toBe("yes");
      const failed = n8n.executions().at(-1)!;
      expect([failed.workflowId, failed.status]).toEqual([workflowIds.incoming, "error"]);
      expect(failed.error).toContain("was not recorded at the site");
      for (const execution of n8n.executions()) expect(execution.error ?? "").not.toMatch(/timed out/i);
    });

    test("after a STOP, a web sign-up of the number sends nothing and leaves consent revoked; a START from the phone puts it in force and the sign-up is texted once", async () => {
      const person = chef();
      const alertsBefore = alerts.received.length;
      await signUpWithoutScript(person);
      expect(textsTo(person.e164)).toHaveLength(1);
      expect((await incoming({ From: person.e164, Body: "STOP" })).status).toBe(200);
      await expect.poll(() => consentInForce(person.phone), { timeout: 30_000 }).toBe("no");

      // Anyone can type a number: two web sign-ups of it, a reload's worth, change nothing.
      for (const name of [`${person.name} again`, `${person.name} once more`]) {
        // The one answer every kept sign-up gets: it says nothing of the STOP, and how to undo one, to everyone alike.
        const page = await signUpWithoutScript({ ...person, name });
        expect(page).toContain(waitlistMessages.success.title);
        expect(page).toContain(startAgainNote);
      }
      // Past a redelivery pass: nothing texted, consent still revoked, one sign-up waiting.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(textsTo(person.e164)).toHaveLength(1);
      expect(await consentInForce(person.phone)).toBe("no");
      expect((await stateOf(person.phone)).sort()).toEqual(["awaiting_start", "delivered"]);

      // A START signed by Twilio, from that phone: the workflow records it at the site, which sends the sign-up.
      const reply = await incoming({ From: person.e164, Body: "START" });
      expect([reply.status, reply.text]).toEqual([200, emptyTwiml]);
      await expect.poll(() => textsTo(person.e164).length, { timeout: 30_000 }).toBe(2);
      expect(textsTo(person.e164)[1]).toEqual({ to: person.e164, from: twilioFrom, body: smsTexts.welcome });
      expect(await consentInForce(person.phone)).toBe("yes");
      await expect.poll(() => stateOf(person.phone), { timeout: 30_000 }).toEqual(["delivered", "delivered"]);
      // A second START, and a pass later: still texted once.
      expect((await incoming({ From: person.e164, Body: "start" })).status).toBe(200);
      await expect
        .poll(() => consentShow(person.phone), { timeout: 30_000 })
        .toContain("3 consent records, 1 revocation, 2 STARTs");
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(textsTo(person.e164)).toHaveLength(2);
      expect(alerts.received).toHaveLength(alertsBefore);
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

    test('`npm run sms:test` (docs/sms-workflow.md, "Without a phone"), as written there with n8n\'s own address: a test STOP and START are recorded under their message ids, HELP records nothing, a wrong token is refused', async () => {
      const person = chef();
      await signUpWithoutScript(person);
      expect(await consentInForce(person.phone)).toBe("yes");
      const smsTest = (word: string, token = twilio.authToken) =>
        promisify(execFile)(
          "npm",
          ["run", "--silent", "sms:test", "--", word, person.phone, "--via", n8n.webhookUrl(webhookPaths.incoming)],
          {
            env: {
              ...process.env,
              TWILIO_AUTH_TOKEN: token,
              TWILIO_INBOUND_URL: inboundUrl,
              TWILIO_ACCOUNT_SID: twilio.accountSid,
              TWILIO_FROM: twilioFrom,
            },
          },
        );
      const messageOf = (stdout: string) => /\(message (SM[0-9a-f]{32})\)/.exec(stdout)?.[1];

      // A token the workflow does not have: refused, and nothing recorded.
      const refused = await smsTest("STOP", "not-the-account-token").then(
        () => undefined,
        (error: { stdout: string; stderr: string }) => error,
      );
      expect(refused?.stdout).toContain("The workflow answered 403");
      expect(refused?.stderr).toContain("403: the workflow refused the signature");
      expect(await consentInForce(person.phone)).toBe("yes");

      const stop = await smsTest("STOP");
      expect(stop.stdout).toContain(`signed for ${inboundUrl}`);
      expect(stop.stdout).toContain("The workflow answered 200");
      await expect.poll(() => consentInForce(person.phone), { timeout: 30_000 }).toBe("no");
      expect(await consentShow(person.phone)).toContain(`(webhook-id ${messageOf(stop.stdout)})`);

      const help = await smsTest("HELP");
      expect(help.stdout).toContain("The workflow answered 200");
      const start = await smsTest("START");
      await expect.poll(() => consentInForce(person.phone), { timeout: 30_000 }).toBe("yes");
      const shown = await consentShow(person.phone);
      expect(shown).toContain(`(webhook-id ${messageOf(start.stdout)})`);
      expect(shown).not.toContain(`(webhook-id ${messageOf(help.stdout)})`);
      expect(shown).toContain("1 consent record, 1 revocation, 1 START");
    });
  });
}

function settingSpecs() {
  test.describe("settings an operator gets wrong", () => {
    test("by default HELP gets no reply from the workflow (Twilio answers it); with SOUS_HELP_REPLY=on HELP and INFO get the HELP text with the support email; START and hello get empty TwiML, and only the START is recorded", async () => {
      const person = chef();
      await signUpWithoutScript(person);
      const reply = await incoming({ From: person.e164, Body: "HELP" });
      expect([reply.status, reply.text]).toEqual([200, emptyTwiml]);

      await n8n.restart({ SOUS_HELP_REPLY: "on" });
      const helpText = smsTexts.help(supportEmail);
      const helpTwiml = `<?xml version="1.0" encoding="UTF-8"?><Response><Message>${helpText.replaceAll("&", "&amp;").replaceAll("'", "&apos;")}</Message></Response>`;
      for (const text of ["HELP", "info"])
        expect((await incoming({ From: person.e164, Body: text })).text).toBe(helpTwiml);
      for (const text of ["START", "hello"])
        expect((await incoming({ From: person.e164, Body: text })).text).toBe(emptyTwiml);
      expect(await consentInForce(person.phone)).toBe("yes");
      await expect
        .poll(() => consentShow(person.phone), { timeout: 30_000 })
        .toContain("1 consent record, 0 revocations, 1 START");
    });

    test("TWILIO_INBOUND_URL off by a trailing slash: a signed STOP gets 403 and one alert naming both URLs, without the number, once per interval; set right, the same STOP is recorded", async () => {
      // Two restarts of n8n (the operator's mistake, then its fix): 17 s in all on an idle machine with 2.x, but
      // 1.x under both CI lines' load ran past 120 s once (b2a5cf0), each start waiting on the processor.
      test.setTimeout(240_000);
      const person = chef();
      await signUpWithoutScript(person);
      const mistyped = `${inboundUrl}/`;
      await n8n.restart({ TWILIO_INBOUND_URL: mistyped });
      try {
        expect((await incoming({ From: person.e164, Body: "STOP" })).status).toBe(403);
        await expect.poll(() => alertsSaying(urlAlert).length, { timeout: 20_000 }).toBe(1);
        // n8n keeps what the report node remembers once its execution ends: later messages find it.
        await expect.poll(() => n8n.executions().filter(finishedNot).length, { timeout: 20_000 }).toBe(0);
        for (const text of ["Stop please", "STOP"])
          expect((await incoming({ From: person.e164, Body: text })).status).toBe(403);
        // These refusals are counted, not alerted again within the interval.
        await expect.poll(() => n8n.executions().filter(finishedNot).length, { timeout: 20_000 }).toBe(0);
        expect(alertsSaying(urlAlert)).toHaveLength(1);
        const alert = alertsSaying(urlAlert)[0]!;
        expect(alert.json).toEqual({
          text: expect.stringContaining(`Twilio signs them for ${inboundUrl}, but TWILIO_INBOUND_URL is ${mistyped}.`),
        });
        for (const spelling of phoneSpellings(person)) expect(alert.body).not.toContain(spelling);
        expect(await consentInForce(person.phone)).toBe("yes");
      } finally {
        await n8n.restart({ TWILIO_INBOUND_URL: inboundUrl });
      }
      expect((await incoming({ From: person.e164, Body: "STOP" })).status).toBe(200);
      await expect.poll(() => consentInForce(person.phone), { timeout: 30_000 }).toBe("no");
      expect(alertsSaying(urlAlert)).toHaveLength(1);
    });
  });
}

/** A quote request as a visitor types it, with a marker of its own in every field. */
function quoteRequest() {
  counter += 1;
  return {
    name: `Chef Quote ${counter}`,
    email: `quote${counter}.${process.pid}@example.com`,
    phone: `(503) 555-01${String(counter % 100).padStart(2, "0")}`,
    clientCount: "6-15",
    currentTools: `Spreadsheets and Venmo ${counter}`,
    message: `Invoices take my Sundays <@here> ${counter}.\nSecond line.`,
  };
}

/** A visitor sends the contact form on / and sees the site's answer. */
async function askForQuote(
  browser: Browser,
  request: ReturnType<typeof quoteRequest>,
  options: { javaScriptEnabled: boolean; answer: string },
) {
  const context = await browser.newContext({ javaScriptEnabled: options.javaScriptEnabled });
  const page = await context.newPage();
  await page.goto(`${site.url}/#contact`);
  const form = new ContactFormPage(page);
  await untilHydrated(form.section.locator("form"));
  await form.fill(request);
  await form.submit.click();
  // The site answers once n8n has posted to the chat, or once its attempts gave up: within WEBHOOK_DEADLINE_MS (9 s).
  // With JavaScript on, the default 5 s ran out under a loaded CI run's n8n, on both tries.
  await expect(page.getByText(options.answer)).toBeVisible({ timeout: 30_000 });
  await context.close();
}

/** The chat messages the chat took (2xx) that carry this marker. */
const postsWith = (marker: string) =>
  chat.received.filter((request) => request.answered === 200 && request.body.includes(marker));

function contactSpecs() {
  test.describe("contact requests reach the operator's chat", () => {
    for (const javaScriptEnabled of [true, false]) {
      test(`a quote request sent on / with JavaScript ${javaScriptEnabled ? "on" : "off"} is posted to the chat once, with every field`, async ({
        browser,
      }) => {
        const request = quoteRequest();
        await askForQuote(browser, request, { javaScriptEnabled, answer: contactMessages.success.text });

        const posts = postsWith(request.email);
        expect(posts).toHaveLength(1);
        const text = (posts[0]!.json as { text: string }).text;
        for (const value of [request.name, request.email, request.phone, "Clients: 6-15", request.currentTools])
          expect(text).toContain(value);
        // The visitor's words are text: Slack's markup escaped, the mention Discord would ping broken, each line quoted
        // so that none can pose as a label.
        const asText = request.message.replaceAll("<", "&lt;").replaceAll(">", "&gt;").replace("@here", "@\u200bhere");
        expect(asText).toContain("&lt;@\u200bhere&gt;");
        const quoted = asText.replace(/^/gm, "> ");
        expect(text.endsWith(`Biggest business challenge:\n${quoted}`)).toBe(true);
      });
    }

    test("while the chat is down the workflow answers 503 and the visitor hears of an error; the site redelivers and the request is posted once", async ({
      browser,
    }) => {
      const request = quoteRequest();
      chat.outage(503);
      await askForQuote(browser, request, { javaScriptEnabled: false, answer: contactMessages.failure.text });
      expect(chat.received.filter((post) => post.body.includes(request.email)).length).toBeGreaterThan(0);
      expect(postsWith(request.email)).toEqual([]);

      chat.outage(undefined);
      await expect.poll(() => postsWith(request.email).length, { timeout: 30_000 }).toBe(1);
      // The site's next redelivery would have come within two seconds: none did.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      expect(postsWith(request.email)).toHaveLength(1);
    });

    test("an unsigned or forged request gets 401 and posts nothing; the same signed well is posted, and a second delivery under its webhook-id is not posted again", async () => {
      const request = quoteRequest();
      const body = JSON.stringify(request);
      const send = (headers: Record<string, string>) => deliverTo(webhookPaths.contact, body, headers);
      const unsigned = await send({ "content-type": "application/json" });
      const forged = await send(signedDelivery(body, `msg_forged_${counter}`, newWebhookSecret()));
      const stale = await send(
        signedDelivery(body, `msg_stale_${counter}`, contactSecret, new Date(Date.now() - 6 * 60_000)),
      );
      expect([unsigned.status, forged.status, stale.status]).toEqual([401, 401, 401]);
      expect(chat.received.filter((post) => post.body.includes(request.email))).toEqual([]);

      const id = `msg_contact_${counter}`;
      const first = await send(signedDelivery(body, id, contactSecret));
      expect([first.status, await first.json()]).toEqual([200, { posted: true }]);
      const again = await send(signedDelivery(body, id, contactSecret));
      expect([again.status, await again.json()]).toEqual([200, { posted: true, duplicate: true }]);
      expect(postsWith(request.email)).toHaveLength(1);
    });
  });
}

/** The leads made since `since` that wait, as `npm run leads -- list --state pending` lists them: their forms and how far off their next attempt is. */
async function waitingSince(since: number) {
  const rows = await siteDatabase()
    .selectFrom("outbox")
    .select(["receiver", "next_attempt_at"])
    .where("state", "=", "pending")
    .where("created_at", ">=", since)
    .orderBy("created_at")
    .execute();
  return rows.map((lead) => ({
    form: lead.receiver,
    nextAttemptAt: Number(lead.next_attempt_at),
    minutesAway: Math.round((lead.next_attempt_at - Date.now()) / 60_000),
  }));
}

/** The senders of the attempts that delivered the leads made since `since` (visitor, pass, probe or operator), sorted. */
async function deliveredBySince(since: number) {
  const rows = await siteDatabase()
    .selectFrom("outbox_attempts")
    .innerJoin("outbox", "outbox.id", "outbox_attempts.outbox_id")
    .select("outbox_attempts.sender")
    .where("outbox.receiver", "<>", "invitations")
    .where("outbox.created_at", ">=", since)
    .where("outbox_attempts.failure", "is", null)
    .execute();
  return rows.map((row) => row.sender).sort();
}

function outageSpecs() {
  test.describe("after an outage of n8n", () => {
    test("3 sign-ups and a quote request that failed twice (REDELIVERY_SCHEDULE_SECONDS=1,1,600) while n8n was stopped are delivered by the probe once its webhooks answer, before the ten-minute step, once each, and health is 200 by then", async ({
      browser,
    }) => {
      test.setTimeout(8 * 60_000);
      const people = [chef(), chef(), chef()];
      const request = quoteRequest();
      const since = Date.now();
      let step = 0;
      // The probe every 10 s, not the 60 s default: what is tested is that the probe, not the ten-minute step, finds
      // the workflow back (43 to 47 s after the webhooks answered in CI with the default).
      await restartSite({ ...siteAlerting(), REDELIVERY_SCHEDULE_SECONDS: "1,1,600", REDELIVERY_PROBE_SECONDS: "10" });
      try {
        await n8n.restart({}, async () => {
          for (const person of people)
            expect(await signUpWithoutScript(person)).toContain(
              waitlistMessages.failure.text.replaceAll("'", "&#x27;"),
            );
          await askForQuote(browser, request, { javaScriptEnabled: false, answer: contactMessages.failure.text });
          // Both quick rounds failed too: each next attempt is the ten-minute step.
          await expect
            .poll(async () => (await waitingSince(since)).filter((lead) => lead.minutesAway >= 9).length, {
              timeout: 30_000,
            })
            .toBe(4);
          step = Math.min(...(await waitingSince(since)).map((lead) => lead.nextAttemptAt));
          expect((await health()).status).toBe(503);
        });
        const answering = Date.now();
        const delivered = () =>
          people.every((person) => textsTo(person.e164).length > 0) && postsWith(request.email).length > 0;
        // Not a time limit but an order: the probe's, before the first lead's ten-minute step (its deadline, 30 s
        // before it, or 4 minutes). Typically 10 to 30 s here; once over 90 s on n8n 1.x in a loaded CI, where the
        // first executions after a start are slow. A failure prints what the probes did.
        try {
          await expect
            .poll(delivered, { timeout: Math.min(4 * 60_000, step - 30_000 - Date.now()), intervals: [500] })
            .toBe(true);
        } catch (error) {
          const probes = site
            .output()
            .split("\n")
            .filter((line) => /"event":"(receiver_probed|lead_redelivered|lead_pending|webhook_[a-z_]+)"/.test(line));
          console.log(`${n8n.line.label}: not all delivered; the site's probe lines:\n${probes.join("\n")}`);
          throw error;
        }
        const took = Date.now() - answering;
        expect(Date.now()).toBeLessThan(step);
        // The waitlist's probe sent one sign-up and made the two others due, which that pass sent; the contact
        // form's probe sent the quote request: no scheduled round delivered any of them. Polled: Twilio has the text
        // before n8n answers the site, which records the attempt then (CI once read three of the four here).
        await expect
          .poll(() => deliveredBySince(since), { timeout: 30_000 })
          .toStrictEqual(["pass", "pass", "probe", "probe"]);
        await expect.poll(async () => (await health()).status, { timeout: 30_000 }).toBe(200);
        console.log(
          `${n8n.line.label}: after the outage, all four delivered ${(took / 1000).toFixed(1)} s after the webhooks answered; health 200 ${((Date.now() - answering) / 1000).toFixed(1)} s after`,
        );
        for (const person of people)
          expect(textsTo(person.e164)).toEqual([{ to: person.e164, from: twilioFrom, body: smsTexts.welcome }]);
        expect(postsWith(request.email)).toHaveLength(1);
        expect(await waitingSince(since)).toStrictEqual([]);
      } finally {
        await restartSite();
      }
    });
  });
}

/** `npm run invite` with the site's settings: what it printed, or its failure. A poll reads the table instead (invitationCounts). */
async function invite(...args: string[]) {
  const { stdout } = await promisify(execFile)("npm", ["run", "--silent", "invite", "--", ...args], {
    env: { ...process.env, ...siteSettings() },
  });
  return stdout;
}
type InviteStatus = { counts: Record<string, number>; refusedByCode: Record<string, number> };
const inviteStatus = async (wave: string) =>
  JSON.parse(await invite("status", "--wave", wave, "--json")) as InviteStatus;
/** A phones file in the site's data folder, one number a line. */
async function phonesFile(name: string, phones: readonly string[]) {
  const file = path.join(dataDir, `${name}.txt`);
  await writeFile(file, `${phones.join("\n")}\n`);
  return file;
}
const invitationsTo = (phones: readonly string[]) =>
  twilio
    .accepted()
    .filter((message) => invitationLinkOf(message.body, siteSettings().SITE_URL) && phones.includes(message.to));

function invitationSpecs() {
  test.describe("launch invitations", () => {
    // Numbers of a zone inside the hours when the first of these tests runs (and for half an hour after), so the
    // pass sends them on the real clock n8n's signature check reads. Chosen then, not when the specs are collected.
    let prefix = "";
    const numberAt = (i: number) => numberUnder((prefix ||= openPrefix(30).prefix), 100 + i);
    const wave = () => {
      const numbers = Array.from({ length: 23 }, (_, i) => numberAt(i));
      return { numbers, revoked: numbers.slice(0, 2), invited: numbers.slice(2, 22), stopped: numbers[22]! };
    };

    test("a wave of 20 consented numbers and 2 revoked, with a STOP while it is queued: 20 texts, none to the revoked or the stopped; status, export and consent records agree", async () => {
      test.setTimeout(180_000);
      const { numbers, revoked, invited, stopped } = wave();
      for (const [i, phone] of numbers.entries())
        expect(await signUpWithoutScript({ name: `Invited ${i}`, phone })).toContain(waitlistMessages.success.text);
      for (const phone of revoked) expect((await incoming({ From: phone, Body: "STOP" })).status).toBe(200);
      for (const phone of revoked) await expect.poll(() => consentInForce(phone), { timeout: 30_000 }).toBe("no");

      const sent = await invite("send", "--phones", await phonesFile("wave-1", numbers), "--wave", "launch-1");
      expect(sent).toContain("21 numbers would be texted, in sign-up order:");
      expect(sent).toContain(
        "Left out: 2 revoked, 0 already invited, 0 with no consent record, 0 outside WAITLIST_PHONE_COUNTRIES, 0 whose welcome was not texted.",
      );
      expect(sent).toContain("Queued 21 invitations in wave launch-1: the server sends them at 60 a minute");
      // The last in sign-up order texts STOP while the wave is queued: its turn comes some 20 s later.
      expect((await incoming({ From: stopped, Body: "STOP" })).status).toBe(200);

      const done = { queued: 0, waiting: 0, texted: 20, skipped: 1, refused: 0, failed: 0 };
      await expect
        .poll(() => invitationCounts(siteDatabase(), "launch-1"), { timeout: 90_000, intervals: [500] })
        .toMatchObject(done);
      expect((await inviteStatus("launch-1")).counts).toMatchObject(done);
      // The fake Twilio got exactly one invitation per consented number, the site's text, and none to the others.
      expect(
        invitationsTo(numbers)
          .map((message) => message.to)
          .sort(),
      ).toStrictEqual([...invited].sort());
      expect(invitationsTo([...revoked, stopped])).toStrictEqual([]);

      const exported = (await invite("export", "--wave", "launch-1", "--format", "jsonl"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, string>);
      expect(exported.map((row) => row.phone)).toStrictEqual([...invited, stopped]);
      expect(exported.filter((row) => row.state === "texted").map((row) => row.phone)).toStrictEqual(invited);
      expect(exported.find((row) => row.phone === stopped)).toMatchObject({
        state: "skipped",
        answer: null,
        claimed_at: null,
      });
      // Each relied on the number's own consent record, as npm run consent -- show lists it.
      for (const row of exported.slice(0, 3)) {
        const shown = JSON.parse(
          (
            await promisify(execFile)("npm", ["run", "--silent", "consent", "--", "show", row.phone!, "--json"], {
              env: { ...process.env, ...siteSettings() },
            })
          ).stdout,
        ) as { records: Array<{ record: string; id: string }>; invitations: Array<{ id: string; answer: string }> };
        expect(row.consent_id).toBe(shown.records.find((record) => record.record === "consent")!.id);
        expect(shown.invitations).toStrictEqual([expect.objectContaining({ id: row.id, answer: "texted" })]);
      }
    });

    test("a second send naming numbers invited already texts none of them; a new number in the same file is texted", async () => {
      const { numbers } = wave();
      const newcomer = numberAt(23);
      expect(await signUpWithoutScript({ name: "Newcomer", phone: newcomer })).toContain(waitlistMessages.success.text);
      const sent = await invite(
        "send",
        "--phones",
        await phonesFile("wave-2", [...numbers, newcomer]),
        "--wave",
        "launch-2",
      );
      expect(sent).toContain("1 number would be texted, in sign-up order:");
      expect(sent).toContain(
        "Left out: 2 revoked, 21 already invited, 0 with no consent record, 0 outside WAITLIST_PHONE_COUNTRIES, 0 whose welcome was not texted.",
      );
      await expect.poll(() => invitationsTo([newcomer]).length, { timeout: 30_000 }).toBe(1);
      expect(invitationsTo(numbers)).toHaveLength(20);
      expect((await inviteStatus("launch-2")).counts).toMatchObject({ texted: 1 });
    });

    test("a number the carrier refuses is recorded with Twilio's code and not sent again", async () => {
      const refused = numberAt(24);
      // Welcomed first: a wave invites only numbers whose welcome was texted.
      expect(await signUpWithoutScript({ name: "Refused", phone: refused })).toContain(waitlistMessages.success.text);
      twilio.refuse(refused, 21610);
      await invite("send", "--phones", await phonesFile("wave-3", [refused]), "--wave", "launch-3");
      await expect
        .poll(async () => (await invitationCounts(siteDatabase(), "launch-3")).refused, { timeout: 30_000 })
        .toBe(1);
      expect((await inviteStatus("launch-3")).refusedByCode).toStrictEqual({ "21610": 1 });
      // Its welcome and its invitation each reached Twilio once: nothing retried.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(
        callsFor(refused).filter((call) => invitationLinkOf(call.fields.Body!, siteSettings().SITE_URL)),
      ).toHaveLength(1);
    });

    test("Twilio takes an invitation but answers after the workflow stopped waiting: 503, then the site's redelivery finds it in Twilio's list, and the number is texted once", async () => {
      const late = numberAt(25);
      const prompt = numberAt(26);
      for (const [name, phone] of [
        ["Late", late],
        ["Prompt", prompt],
      ] as const)
        expect(await signUpWithoutScript({ name, phone })).toContain(waitlistMessages.success.text);
      await expect.poll(() => callsFor(late).length + callsFor(prompt).length, { timeout: 30_000 }).toBe(2);
      // Taken at once, answered after 4 s: the workflow's 2.5 s timeout runs out first.
      twilio.answerLate(late, 4_000);
      await invite("send", "--phones", await phonesFile("wave-4", [late, prompt]), "--wave", "launch-4");
      await expect
        .poll(() => invitationCounts(siteDatabase(), "launch-4"), { timeout: 60_000, intervals: [500] })
        .toMatchObject({ texted: 2, queued: 0, failed: 0 });
      const exported = (await invite("export", "--wave", "launch-4", "--format", "jsonl"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { phone: string; attempts: number; state: string });
      // The late one was sent twice under its webhook-id; the prompt one, its working twin, once.
      expect(exported.map((row) => [row.phone, row.state, row.attempts])).toStrictEqual([
        [late, "texted", 2],
        [prompt, "texted", 1],
      ]);
      expect(invitationsTo([late, prompt]).map((message) => message.to)).toStrictEqual([late, prompt]);
      // The redelivery asked Twilio about the late number; nobody asked about the prompt one.
      const lookups = (phone: string) =>
        twilio.calls.filter(
          (call) => call.method === "GET" && new URL(call.path, twilio.url).searchParams.get("To") === phone,
        );
      expect(lookups(late)).toHaveLength(1);
      expect(lookups(prompt)).toHaveLength(0);
    });

    test("a wave of 5 sent with a wrong INVITE_WEBHOOK_SECRET: health says the invitations' receiver fails with 401, one alert names it and the secret; set right and restarted, the 5 are texted once and the channel hears it recovered", async () => {
      test.setTimeout(180_000);
      const phones = Array.from({ length: 5 }, (_, i) => numberAt(30 + i));
      for (const [i, phone] of phones.entries())
        expect(await signUpWithoutScript({ name: `Wrong secret ${i}`, phone })).toContain(
          waitlistMessages.success.text,
        );
      // One quick retry, then ten minutes: the probe (every 5 s here) is what finds the workflow answering again.
      // The channel's damping at its shortest: a change is told once a minute has passed since the last alert.
      const operator = {
        ...siteAlerting(),
        REDELIVERY_SCHEDULE_SECONDS: "2,600",
        REDELIVERY_PROBE_SECONDS: "5",
        ALERT_MIN_INTERVAL_MINUTES: "1",
      };
      // Its working twin first: nothing fails yet.
      await restartSite(operator);
      expect(await health()).toMatchObject({ status: 200 });
      await restartSite({ ...operator, INVITE_WEBHOOK_SECRET: newWebhookSecret() });
      try {
        await invite("send", "--phones", await phonesFile("wave-wrong", phones), "--wave", "launch-wrong");
        await expect
          .poll(async () => (await health()).body, { timeout: 30_000 })
          .toMatchObject({
            status: "degraded",
            invitations: { waiting: 5, lastFailure: "status 401 signature" },
          });
        expect((await health()).body).toMatchObject({
          problems: expect.arrayContaining(["receiver_failing"]),
        });
        await expect.poll(() => siteAlerts().filter((alert) => alert.form === "invitations").length).toBe(1);
        const [failing] = siteAlerts().filter((alert) => alert.form === "invitations");
        expect(failing).toMatchObject({ kind: "failing" });
        expect(failing!.text).toContain("The last answer: status 401 signature.");
        expect(failing!.text).toContain("INVITE_WEBHOOK_SECRET");
        for (const phone of phones) expect(failing!.text).not.toContain(phone.slice(-7));
        expect(invitationsTo(phones)).toStrictEqual([]);

        // The operator sets the secret the workflow checks and restarts the site.
        await restartSite(operator);
        const texted = { texted: 5, queued: 0, failed: 0 };
        await expect
          .poll(() => invitationCounts(siteDatabase(), "launch-wrong"), { timeout: 60_000, intervals: [500] })
          .toMatchObject(texted);
        expect((await inviteStatus("launch-wrong")).counts).toMatchObject(texted);
        expect(
          invitationsTo(phones)
            .map((message) => message.to)
            .sort(),
        ).toStrictEqual([...phones].sort());
        await expect
          .poll(
            () =>
              siteAlerts()
                .filter((alert) => alert.form === "invitations")
                .map((alert) => alert.kind),
            { timeout: 90_000 },
          )
          .toStrictEqual(["failing", "recovered"]);
        await expect.poll(async () => (await health()).status).toBe(200);
      } finally {
        await restartSite();
      }
    });

    test("a wave of 4 with 2 waiting for their hours, cancelled: the next plan lists the 2, and the next wave texts them once, when their hours open", async () => {
      test.setTimeout(180_000);
      const { opened, waiting, narrow } = splitHours(10);
      const now = [numberUnder(opened.prefix, 200), numberUnder(opened.prefix, 201)];
      const later = [numberUnder(waiting.prefix, 202), numberUnder(waiting.prefix, 203)];
      const phones = [now[0]!, later[0]!, now[1]!, later[1]!];
      for (const [i, phone] of phones.entries())
        expect(await signUpWithoutScript({ name: `Cancelled ${i}`, phone })).toContain(waitlistMessages.success.text);
      // Hours that leave the second zone closed for now.
      await restartSite({ INVITE_HOURS: `${narrow.from}-${narrow.to}` });
      try {
        await invite("send", "--phones", await phonesFile("wave-cancel", phones), "--wave", "launch-cancel");
        await expect
          .poll(() => invitationCounts(siteDatabase(), "launch-cancel"), { timeout: 30_000, intervals: [500] })
          .toMatchObject({ texted: 2, waiting: 2, queued: 0 });
        // The working twin of "listed again": before the cancel, all four are invited.
        expect(await invite("plan", "--phones", await phonesFile("plan-before", phones))).toContain(
          "Left out: 0 revoked, 4 already invited",
        );
        expect(await invite("cancel", "--wave", "launch-cancel")).toBe(
          "Cancelled 2 invitations of wave launch-cancel not sent yet. 2 never reached the carrier (never tried, or refused before any text): a later wave can take them (npm run invite -- plan). None was being sent.\n",
        );
      } finally {
        await restartSite();
      }
      const plan = await invite("plan", "--phones", await phonesFile("plan-after", phones));
      expect(plan).toContain("2 numbers would be texted, in sign-up order:");
      expect(plan).toContain("Left out: 0 revoked, 2 already invited");
      await invite("send", "--phones", await phonesFile("wave-after", phones), "--wave", "launch-after-cancel");
      await expect
        .poll(() => invitationCounts(siteDatabase(), "launch-after-cancel"), { timeout: 30_000, intervals: [500] })
        .toMatchObject({ texted: 2, queued: 0, waiting: 0 });
      // Each of the four texted once in all.
      expect(
        invitationsTo(phones)
          .map((message) => message.to)
          .sort(),
      ).toStrictEqual([...phones].sort());
    });
  });
}

function ownerSpecs(line: N8nLine) {
  test.describe("the editor's owner", () => {
    const title = line.owner
      ? "is created from n8n's environment at start: no setup screen for the first visitor, and the owner signs in"
      : "is unclaimed until someone claims it (this line has no setting for it: the docs claim it before n8n is exposed)";
    test(title, async () => {
      const settings = (await (await fetch(`${n8n.url}/rest/settings`)).json()) as {
        data: { userManagement: { showSetupOnFirstLoad: boolean } };
      };
      expect(settings.data.userManagement.showSetupOnFirstLoad).toBe(!line.owner);
      if (!line.owner) return;
      const login = (password: string) =>
        fetch(`${n8n.url}/rest/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ emailOrLdapLoginId: testOwner.email, password }),
        });
      expect((await login(testOwner.password)).status).toBe(200);
      // Its twin: a wrong password is refused.
      expect((await login(`${testOwner.password}x`)).status).toBe(401);
    });
  });
}

function proxySpecs() {
  test.describe("the proxy examples of docs/sms-workflow.md (Securing n8n), in front of this n8n", () => {
    // A body over the example's 1 MB: nginx answers 413. Caddy before 2.7 (Debian 12 ships 2.6.2) answers 502, its
    // limit cutting the body short on its way to n8n (caddyserver/caddy#5652, fixed in 2.7: 413); either way the
    // delivery never reaches the workflow whole.
    for (const [name, start, tooLarge] of [
      ["nginx", startNginxExample, [413]],
      ["Caddy", startCaddyExample, [413, 502]],
    ] as const)
      test(`${name}: a signed STOP through /webhook/ is recorded and an unsigned delivery reaches the workflow (401); the editor, /rest/ and other paths answer 404, a body over 1 MB is refused`, async () => {
        const proxy = await start(Number(new URL(n8n.url).port));
        try {
          // The working twins: n8n itself serves its editor and its REST API.
          expect((await fetch(`${n8n.url}/rest/settings`)).status).toBe(200);
          expect((await fetch(`${n8n.url}/`)).status).toBe(200);
          for (const [method, pathName] of [
            ["GET", "/"],
            ["GET", "/signin"],
            ["GET", "/home/workflows"],
            ["GET", "/rest/settings"],
            ["POST", "/rest/login"],
            ["GET", "/assets/index.js"],
            ["POST", `/webhook-test/${webhookPaths.welcome}`],
            ["POST", `/form/${webhookPaths.welcome}`],
          ] as const)
            expect((await fetch(`${proxy.url}${pathName}`, { method })).status, `${method} ${pathName}`).toBe(404);

          const body = JSON.stringify({ phone: "+15035550123", name: "Through the proxy" });
          const unsigned = await fetch(`${proxy.url}/webhook/${webhookPaths.welcome}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          });
          expect(unsigned.status).toBe(401);
          const large = await fetch(`${proxy.url}/webhook/${webhookPaths.welcome}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ pad: "x".repeat(1_100_000) }),
          });
          expect(tooLarge).toContain(large.status);

          const person = chef();
          await signUpWithoutScript(person);
          expect(await consentInForce(person.phone)).toBe("yes");
          const stop = await postIncomingSms(
            inboundUrl,
            `${proxy.url}/webhook/${webhookPaths.incoming}`,
            { From: person.e164, Body: "STOP" },
            { authToken: twilio.authToken, accountSid: twilio.accountSid },
          );
          expect(stop.status).toBe(200);
          await expect.poll(() => consentInForce(person.phone), { timeout: 30_000 }).toBe("no");
        } finally {
          await proxy.stop();
        }
      });
  });
}

function docBlockSpecs() {
  test.describe("the verification Code node of docs/webhooks.md, pasted into a workflow of the operator's own", () => {
    test("passes a signed delivery on with its fields, and fails a wrongly signed and a stale one", async () => {
      const body = JSON.stringify({ phone: "+15035550123", name: "Doc Check" });
      const send = (headers: Record<string, string>) => deliverTo(docWorkflow.path, body, headers);
      const signed = await send(signedDelivery(body, "msg_doc_signed"));
      expect(signed.status).toBe(200);
      expect(await signed.json()).toEqual({ webhookId: "msg_doc_signed", phone: "+15035550123", name: "Doc Check" });

      const wrong = await send(signedDelivery(body, "msg_doc_wrong", newWebhookSecret()));
      const stale = await send(
        signedDelivery(body, "msg_doc_stale", waitlistSecret, new Date(Date.now() - 6 * 60_000)),
      );
      expect([wrong.status, stale.status]).toEqual([500, 500]);
      const refused = n8n
        .executions()
        .filter((execution) => execution.workflowId === docWorkflow.id && execution.status === "error")
        .map((execution) => execution.error);
      expect(refused).toEqual([
        expect.stringContaining("Refused a delivery: signature"),
        expect.stringContaining("Refused a delivery: stale"),
      ]);
    });
  });
}
