import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { helpWords, optInWords, optOutWords, smsTexts } from "@/lib/sms/program";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { buildSmsProgram, serialised, workflowFile } from "./build";

/**
 * The Code nodes of the shipped workflow, run as n8n's sandbox runs them
 * (the code inside an async function, `this.helpers`, `$env`, `require`), with
 * Twilio's API and the site replaced by functions. The same file runs in a
 * real n8n in tests/e2e/sms-workflow.server.spec.ts.
 */

type HttpRequest = {
  url: string;
  body: string;
  headers: Record<string, string>;
  auth?: { username: string; password: string };
  timeout?: number;
};
type HttpAnswer = { statusCode: number; body: unknown } | Error;

function nodeCode(name: string) {
  const node = buildSmsProgram()
    .flatMap((workflow) => workflow.nodes)
    .find((candidate) => candidate.name === name) as { parameters: { jsCode: string } } | undefined;
  if (!node) throw new Error(`no node ${name}`);
  return node.parameters.jsCode;
}

const require = createRequire(import.meta.url);

async function run(
  name: string,
  options: {
    env: Record<string, string>;
    json?: unknown;
    rawBody?: string;
    staticData?: object;
    answers?: HttpAnswer[];
  },
) {
  const requests: HttpRequest[] = [];
  const answers = [...(options.answers ?? [])];
  const helpers = {
    getBinaryDataBuffer: async () => Buffer.from(options.rawBody ?? ""),
    httpRequest: async (request: HttpRequest) => {
      requests.push(request);
      const next = answers.shift() ?? { statusCode: 200, body: "{}" };
      if (next instanceof Error) throw next;
      return { ...next, headers: {} };
    },
  };
  const staticData = options.staticData ?? {};
  const body = new Function(
    "$env",
    "$input",
    "$getWorkflowStaticData",
    "$execution",
    "require",
    `return (async function () {${nodeCode(name)}\n}).call(this);`,
  );
  try {
    const result = await body.call(
      { helpers },
      options.env,
      { first: () => ({ json: options.json ?? {} }) },
      () => staticData,
      { id: "4711" },
      require,
    );
    return { result: result as Array<{ json: Record<string, unknown> }>, requests, staticData, error: undefined };
  } catch (error) {
    return { result: [], requests, staticData, error: error as Error };
  }
}

describe("the committed workflow file", () => {
  it("is what `npm run workflow:build` makes of the sources", () => {
    expect(readFileSync(workflowFile, "utf8")).toBe(serialised());
  });
});

const secret = newWebhookSecret();
const twilioEnv = {
  TWILIO_ACCOUNT_SID: "AC123",
  TWILIO_AUTH_TOKEN: "token",
  TWILIO_FROM: "+15005550006",
  TWILIO_API_BASE: "http://twilio.test",
};

function delivery(body: string, options: { id?: string; signWith?: string; at?: Date } = {}) {
  const id = options.id ?? "msg_1";
  const at = options.at ?? new Date();
  return {
    rawBody: body,
    json: {
      headers: {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": new Webhook(options.signWith ?? secret).sign(id, at, body),
      },
    },
  };
}
const signup = JSON.stringify({ phone: "+15035550142", name: "Ana" });

describe("the welcome text", () => {
  const welcome = (options: Parameters<typeof run>[1]) => run("Verify and text", options);

  it("sends one message to the delivered number with the kit's welcome text, as Twilio's API takes it", async () => {
    const { result, requests } = await welcome({
      env: { SOUS_WEBHOOK_SECRETS: secret, ...twilioEnv },
      ...delivery(signup),
      answers: [{ statusCode: 201, body: '{"sid":"SM1"}' }],
    });
    expect(result[0]!.json).toEqual({ status: 200, contentType: "application/json", responseBody: '{"texted":true}' });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      url: "http://twilio.test/2010-04-01/Accounts/AC123/Messages.json",
      auth: { username: "AC123", password: "token" },
      timeout: 2_500,
    });
    expect(Object.fromEntries(new URLSearchParams(requests[0]!.body))).toEqual({
      To: "+15035550142",
      From: "+15005550006",
      Body: smsTexts.welcome,
    });
  });

  it("sends from a Messaging Service when TWILIO_FROM is one", async () => {
    const { requests } = await welcome({
      env: { SOUS_WEBHOOK_SECRETS: secret, ...twilioEnv, TWILIO_FROM: "MG0123" },
      ...delivery(signup),
      answers: [{ statusCode: 201, body: "{}" }],
    });
    expect(Object.fromEntries(new URLSearchParams(requests[0]!.body))).toMatchObject({ MessagingServiceSid: "MG0123" });
    expect(requests[0]!.body).not.toContain("From=");
  });

  it("takes a delivery signed by any secret of a rotation, and refuses a wrong secret, a stale or missing timestamp, a changed body", async () => {
    const rotation = `${newWebhookSecret()} ${secret}`;
    const ok = await welcome({
      env: { SOUS_WEBHOOK_SECRETS: rotation, ...twilioEnv },
      ...delivery(signup),
      answers: [{ statusCode: 201, body: "{}" }],
    });
    expect(ok.result[0]!.json.status).toBe(200);

    const refusals = [
      { ...delivery(signup, { signWith: newWebhookSecret() }) },
      { ...delivery(signup, { at: new Date(Date.now() - 301_000) }) },
      { ...delivery(signup, { at: new Date(Date.now() + 301_000) }) },
      { ...delivery(signup), rawBody: signup.replace("Ana", "Eve") },
      { rawBody: signup, json: { headers: {} } },
    ];
    for (const refused of refusals) {
      const { result, requests } = await welcome({ env: { SOUS_WEBHOOK_SECRETS: rotation, ...twilioEnv }, ...refused });
      expect(result[0]!.json.status).toBe(401);
      expect(requests).toEqual([]);
    }
    const { result } = await welcome({ env: { ...twilioEnv }, ...delivery(signup) });
    expect(result[0]!.json.status).toBe(401);
  });

  it("answers 2xx with texted: false when Twilio refuses the number, 503 when the fault is the operator's or Twilio's", async () => {
    const cases: Array<[HttpAnswer, number, Record<string, unknown>]> = [
      [{ statusCode: 400, body: { code: 21211 } }, 200, { texted: false, code: 21211 }],
      [{ statusCode: 400, body: '{"code":21610}' }, 200, { texted: false, code: 21610 }],
      [{ statusCode: 400, body: { code: 21614 } }, 200, { texted: false, code: 21614 }],
      [
        { statusCode: 400, body: { code: 21606 } },
        503,
        { texted: false, error: "twilio_refused", twilioStatus: 400, code: 21606 },
      ],
      [
        { statusCode: 401, body: { code: 20003 } },
        503,
        { texted: false, error: "twilio_refused", twilioStatus: 401, code: 20003 },
      ],
      [
        { statusCode: 429, body: { code: 20429 } },
        503,
        { texted: false, error: "twilio_refused", twilioStatus: 429, code: 20429 },
      ],
      [{ statusCode: 500, body: "oops" }, 503, { texted: false, error: "twilio_refused", twilioStatus: 500 }],
      [
        Object.assign(new Error("timeout"), { code: "ECONNABORTED" }),
        503,
        { texted: false, error: "twilio_unreachable" },
      ],
    ];
    for (const [twilio, status, body] of cases) {
      const { result } = await welcome({
        env: { SOUS_WEBHOOK_SECRETS: secret, ...twilioEnv },
        ...delivery(signup),
        answers: [twilio],
      });
      expect(result[0]!.json.status).toBe(status);
      expect(JSON.parse(String(result[0]!.json.responseBody))).toEqual(body);
    }
    const { result } = await welcome({ env: { SOUS_WEBHOOK_SECRETS: secret }, ...delivery(signup) });
    expect(JSON.parse(String(result[0]!.json.responseBody))).toEqual({ texted: false, error: "twilio_not_configured" });
  });

  it("texts a webhook-id once: a redelivery after an accepted or refused number sends nothing, one after a 503 sends", async () => {
    const staticData = {};
    const env = { SOUS_WEBHOOK_SECRETS: secret, ...twilioEnv };
    const failed = await welcome({
      env,
      staticData,
      ...delivery(signup, { id: "msg_a" }),
      answers: [{ statusCode: 503, body: "{}" }],
    });
    expect(failed.result[0]!.json.status).toBe(503);
    const sent = await welcome({
      env,
      staticData,
      ...delivery(signup, { id: "msg_a" }),
      answers: [{ statusCode: 201, body: "{}" }],
    });
    expect(sent.requests).toHaveLength(1);
    const again = await welcome({ env, staticData, ...delivery(signup, { id: "msg_a" }) });
    expect(again.requests).toEqual([]);
    expect(again.result[0]!.json.responseBody).toBe('{"texted":true,"duplicate":true}');

    await welcome({
      env,
      staticData,
      ...delivery(signup, { id: "msg_b" }),
      answers: [{ statusCode: 400, body: { code: 21211 } }],
    });
    const refusedAgain = await welcome({ env, staticData, ...delivery(signup, { id: "msg_b" }) });
    expect(refusedAgain.requests).toEqual([]);
    expect(refusedAgain.result[0]!.json.responseBody).toBe('{"texted":false,"duplicate":true}');
  });

  it("forgets webhook-ids after seven days and keeps at most 10,000", async () => {
    const now = Math.floor(Date.now() / 1000);
    const texted: Record<string, { at: number; texted: boolean }> = {
      old: { at: now - 7 * 86_400 - 10, texted: true },
    };
    for (let i = 0; i < 10_000; i += 1) texted[`id${i}`] = { at: now - 10_000 + i, texted: true };
    const staticData = { texted };
    await welcome({
      env: { SOUS_WEBHOOK_SECRETS: secret, ...twilioEnv },
      staticData,
      ...delivery(signup, { id: "msg_new" }),
      answers: [{ statusCode: 201, body: "{}" }],
    });
    expect(Object.keys(texted)).toHaveLength(10_000);
    expect(texted).not.toHaveProperty("old");
    expect(texted).not.toHaveProperty("id0");
    expect(texted).toHaveProperty("id9999");
    expect(texted).toHaveProperty("msg_new");
  });
});

describe("incoming messages", () => {
  const docsUrl = "https://mycompany.com/myapp.php?foo=1&bar=2";
  const docsFields = {
    CallSid: "CA1234567890ABCDE",
    Caller: "+12349013030",
    Digits: "1234",
    From: "+12349013030",
    To: "+18005551212",
  };
  const env = { TWILIO_AUTH_TOKEN: "12345", TWILIO_INBOUND_URL: docsUrl, SOUS_SUPPORT_EMAIL: "help@sous.test" };
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  // Twilio's own example (its "Validating signatures" page): token 12345, this URL and these fields.
  const docsSignature = "0/KCTR6DLpKmkAf8muzZqo1nDgQ=";
  const read = (fields: Record<string, string>, signature = docsSignature, more: Record<string, string> = {}) =>
    run("Read the message", {
      env: { ...env, ...more },
      rawBody: form(fields),
      json: { headers: { "x-twilio-signature": signature } },
    });

  it("checks X-Twilio-Signature as Twilio computes it, and answers 403 to anything else", async () => {
    expect((await read(docsFields)).result[0]!.json).toMatchObject({ status: 200, intent: "other" });
    expect((await read({ ...docsFields, Digits: "1235" })).result[0]!.json).toMatchObject({
      status: 403,
      intent: "forged",
    });
    expect((await read(docsFields, "")).result[0]!.json).toMatchObject({ status: 403 });
    expect(
      (await read(docsFields, docsSignature, { TWILIO_INBOUND_URL: "https://mycompany.com/other" })).result[0]!.json,
    ).toMatchObject({ status: 403 });
    expect((await read(docsFields, docsSignature, { TWILIO_AUTH_TOKEN: "54321" })).result[0]!.json).toMatchObject({
      status: 403,
    });
  });

  // Signed with the fake Twilio's own code, written apart from the workflow's.
  async function reply(Body: string, extra: Record<string, string> = {}, more: Record<string, string> = {}) {
    const { twilioSignature } = await import("@/tests/support/fake-twilio");
    const fields = { MessageSid: "SM1", From: "+15035550142", To: "+15005550006", Body, ...extra };
    return (await read(fields, twilioSignature("12345", docsUrl, fields), more)).result[0]!.json;
  }

  it("reads every opt-out word in any case, punctuation ignored, alone or leading a reply, and Twilio's OptOutType=STOP", async () => {
    const stops = [
      "STOP",
      "Stop.",
      "STOP!!",
      "stop texting me",
      "unsubscribe please",
      "Opt-out",
      "opt out",
      "OPTOUT",
      "StopAll",
      "  end  ",
      "Quit",
      "revoke",
      "cancel",
      "¡Stop!",
    ];
    for (const text of [...stops, ...optOutWords])
      expect(await reply(text)).toMatchObject({
        intent: "stop",
        phone: "+15035550142",
        messageSid: "SM1",
        responseBody: expect.stringContaining("<Response></Response>"),
      });
    expect(await reply("Arrêtez", { OptOutType: "STOP" })).toMatchObject({ intent: "stop" });
    for (const text of ["Can you stop by at 5?", "stopping by later", "Ending soon?", "hello", ""])
      expect(await reply(text)).toMatchObject({ intent: "other" });
    expect(await reply("hello")).not.toHaveProperty("phone");
  });

  it("answers HELP and INFO with the HELP text and the support email, escaped as XML; START and UNSTOP with empty TwiML", async () => {
    for (const text of [...helpWords, "help?", "Info please"]) {
      expect(await reply(text)).toEqual({
        status: 200,
        contentType: "text/xml",
        intent: "help",
        responseBody: `<?xml version="1.0" encoding="UTF-8"?><Response><Message>${smsTexts.help("help@sous.test").replaceAll("&", "&amp;").replaceAll("'", "&apos;")}</Message></Response>`,
      });
    }
    expect((await reply("HELP", {}, { SOUS_SUPPORT_EMAIL: "a<b>&c@sous.test" })).responseBody).toContain(
      "Help: a&lt;b&gt;&amp;c@sous.test.",
    );
    for (const text of [...optInWords, "start!"])
      expect(await reply(text)).toMatchObject({
        intent: "start",
        responseBody: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>',
      });
    expect(await reply("HELP", {}, { SOUS_HELP_REPLY: "off" })).toMatchObject({
      intent: "help",
      responseBody: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>',
    });
  });
});

describe("recording a STOP at the site", () => {
  const consent = [newWebhookSecret(), newWebhookSecret()];
  const env = {
    SOUS_SITE_URL: "http://site.test/",
    CONSENT_WEBHOOK_SECRET: consent.join(" "),
    SOUS_REVOKE_RETRY_SECONDS: "0 0 0",
    SOUS_ALERT_WEBHOOK_URL: "http://alerts.test/hook",
  };
  const stop = { intent: "stop", phone: "+16175550142", messageSid: "SM42" };
  const record = (answers: HttpAnswer[], json: object = stop, more: Record<string, string> = {}) =>
    run("Record the STOP", { env: { ...env, ...more }, json, answers });

  it("posts {phone, channel} to /api/consent/revoke, signed with every secret, under the message's SID", async () => {
    const { result, requests } = await record([{ statusCode: 200, body: '{"recorded":true,"leadsStopped":1}' }]);
    expect(result).toEqual([{ json: { recorded: true, attempts: 1, site: { recorded: true, leadsStopped: 1 } } }]);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.url).toBe("http://site.test/api/consent/revoke");
    expect(JSON.parse(request!.body)).toEqual({ phone: "+16175550142", channel: "sms" });
    expect(request!.headers["webhook-id"]).toBe("SM42");
    for (const each of consent) expect(() => new Webhook(each).verify(request!.body, request!.headers)).not.toThrow();
  });

  it("does nothing for a message that is no STOP", async () => {
    for (const intent of ["help", "start", "other", "forged"])
      expect((await record([], { intent })).requests).toEqual([]);
  });

  it("retries while the site fails or cannot be reached, under the same webhook-id", async () => {
    const { result, requests } = await record([
      { statusCode: 503, body: "" },
      new Error("ECONNREFUSED"),
      { statusCode: 200, body: "{}" },
    ]);
    expect(result[0]!.json).toMatchObject({ recorded: true, attempts: 3 });
    expect(new Set(requests.map((request) => request.headers["webhook-id"]))).toEqual(new Set(["SM42"]));
  });

  it("fails the execution and alerts without the number when the retries are spent, or at once when the site refuses", async () => {
    const spent = await record([
      { statusCode: 503, body: "" },
      { statusCode: 502, body: "" },
      new Error("ECONNRESET"),
      { statusCode: 503, body: "" },
      { statusCode: 200, body: "ok" },
    ]);
    const refused = await record([
      { statusCode: 401, body: "" },
      { statusCode: 200, body: "ok" },
    ]);
    for (const [run, attempts, why] of [
      [spent, 4, "HTTP 503"],
      [refused, 1, "HTTP 401"],
    ] as const) {
      expect(run.error?.message).toBe(
        `The STOP (Twilio message SM42) was not recorded at the site: ${why} after ${attempts} attempt(s); alert sent.`,
      );
      expect(run.requests.filter((request) => request.url.endsWith("/api/consent/revoke"))).toHaveLength(attempts);
      const alerts = run.requests.filter((request) => request.url === "http://alerts.test/hook");
      expect(alerts).toHaveLength(1);
      const { text } = JSON.parse(alerts[0]!.body) as { text: string };
      expect(text).toContain("a STOP reply could not be recorded at the site");
      expect(text).toContain("n8n execution 4711 (Twilio message SM42)");
      for (const spelling of ["+16175550142", "6175550142", "617", "0142"]) expect(text).not.toContain(spelling);
    }
  });

  it("fails without calling the site when SOUS_SITE_URL or CONSENT_WEBHOOK_SECRET is missing, and says the alert is not set up", async () => {
    const run = await record([], stop, { CONSENT_WEBHOOK_SECRET: "", SOUS_ALERT_WEBHOOK_URL: "" });
    expect(run.requests).toEqual([]);
    expect(run.error?.message).toContain(
      "SOUS_SITE_URL or CONSENT_WEBHOOK_SECRET is not set after 0 attempt(s); alert not set.",
    );
  });
});
