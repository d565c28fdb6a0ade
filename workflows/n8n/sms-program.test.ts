import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { helpWords, optInWords, optOutWords, smsTexts } from "@/lib/sms/program";
import { verificationBlock } from "@/tests/support/doc-verification";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { buildSmsProgram, editorFiles, serialised, serialisedOne, workflowFile } from "./build";

/**
 * The Code nodes of the shipped workflow, run as n8n's sandbox runs them
 * (the code inside an async function, `this.helpers`, `$env`, `require`), with
 * Twilio's API and the site replaced by functions. The same file runs in a
 * real n8n of each line in tests/e2e/sms-program.ts.
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
    /** n8n's Variables, where the instance has them. */
    vars?: Record<string, string>;
    /** What `require` does: Node's own unless a test makes it refuse, as n8n does by default. */
    requireModule?: (name: string) => unknown;
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
    "$vars",
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
      options.vars,
      { first: () => ({ json: options.json ?? {} }) },
      () => staticData,
      { id: "4711" },
      options.requireModule ?? require,
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

  it("has each workflow in a file of its own for the editor, the same as in the file of four", () => {
    const all = JSON.parse(serialised()) as Array<{ id: string }>;
    expect(Object.keys(editorFiles)).toStrictEqual(["welcome", "incoming", "contact", "invitations"]);
    for (const [key, file] of Object.entries(editorFiles)) {
      expect(readFileSync(file, "utf8")).toBe(serialisedOne(key as keyof typeof editorFiles));
      const one = JSON.parse(readFileSync(file, "utf8")) as { id: string };
      expect(all.find((workflow) => workflow.id === one.id)).toStrictEqual(one);
    }
  });
});

const secret = newWebhookSecret();
const twilioEnv = {
  TWILIO_ACCOUNT_SID: "AC123",
  TWILIO_AUTH_TOKEN: "token",
  TWILIO_FROM: "+15005550006",
  TWILIO_API_BASE: "http://twilio.test",
};

function delivery(
  body: string,
  options: { id?: string; signWith?: string; at?: Date; headers?: Record<string, string> } = {},
) {
  const id = options.id ?? "msg_1";
  const at = options.at ?? new Date();
  return {
    rawBody: body,
    json: {
      headers: {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": new Webhook(options.signWith ?? secret).sign(id, at, body),
        ...options.headers,
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
      // Five seconds past the five minutes: the runs before it take time, and seconds are whole.
      { ...delivery(signup, { at: new Date(Date.now() - 305_000) }) },
      { ...delivery(signup, { at: new Date(Date.now() + 305_000) }) },
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

describe("the launch invitation", () => {
  const invite = (options: Parameters<typeof run>[1]) => run("Verify and invite", options);
  const inviteSecret = newWebhookSecret();
  const env = { SOUS_INVITE_WEBHOOK_SECRETS: inviteSecret, ...twilioEnv };
  const text = smsTexts.invitation("https://sous.example/start");
  const invitation = JSON.stringify({ phone: "+12125550142", text });
  const signed = (body: string, id = "msg_inv") => delivery(body, { id, signWith: inviteSecret });

  it("texts the site's text to the number once per webhook-id, and answers like the welcome", async () => {
    const staticData = {};
    const sent = await invite({ env, staticData, ...signed(invitation), answers: [{ statusCode: 201, body: "{}" }] });
    expect(sent.result[0]!.json).toEqual({
      status: 200,
      contentType: "application/json",
      responseBody: '{"texted":true}',
    });
    expect(Object.fromEntries(new URLSearchParams(sent.requests[0]!.body))).toEqual({
      To: "+12125550142",
      From: "+15005550006",
      Body: text,
    });
    const again = await invite({ env, staticData, ...signed(invitation) });
    expect(again.requests).toEqual([]);
    expect(again.result[0]!.json.responseBody).toBe('{"texted":true,"duplicate":true}');
    // Its own memory: a welcome's webhook-id does not count as an invitation's.
    expect(staticData).toHaveProperty("invited.msg_inv");
    expect(staticData).not.toHaveProperty("texted");

    const refused = await invite({
      env,
      ...signed(invitation, "msg_r"),
      answers: [{ statusCode: 400, body: { code: 21610 } }],
    });
    expect(JSON.parse(String(refused.result[0]!.json.responseBody))).toEqual({ texted: false, code: 21610 });
    const down = await invite({ env, ...signed(invitation, "msg_d"), answers: [{ statusCode: 503, body: "{}" }] });
    expect(down.result[0]!.json.status).toBe(503);
  });

  describe("a redelivery it has no record of (the site's sous-redelivery-since header)", () => {
    const queuedAt = Math.floor(Date.now() / 1000) - 600;
    const redelivery = (id: string) => signed(invitation, id);
    const marked = (id: string, since = queuedAt) =>
      delivery(invitation, { id, signWith: inviteSecret, headers: { "sous-redelivery-since": String(since) } });
    /** Twilio's GET of the messages to a number, newest first. */
    const listing = (...messages: Array<Record<string, unknown>>) => ({ statusCode: 200, body: { messages } });
    const message = (fields: Record<string, unknown> = {}) => ({
      to: "+12125550142",
      from: "+15005550006",
      body: text,
      direction: "outbound-api",
      date_created: new Date((queuedAt + 60) * 1000).toUTCString().replace("GMT", "+0000"),
      ...fields,
    });

    it("asks Twilio first, and texts nothing when Twilio took this text for the number since the site says", async () => {
      const staticData = {};
      const found = await invite({
        env,
        staticData,
        ...marked("msg_lost"),
        answers: [listing(message({ body: "another text" }), message())],
      });
      expect(found.result[0]!.json).toMatchObject({
        status: 200,
        responseBody: '{"texted":true,"duplicate":true}',
      });
      expect(found.requests).toHaveLength(1);
      const lookup = found.requests[0]! as HttpRequest & { method?: string };
      expect(lookup.method).toBe("GET");
      const url = new URL(lookup.url);
      expect(url.origin + url.pathname).toBe("http://twilio.test/2010-04-01/Accounts/AC123/Messages.json");
      expect(Object.fromEntries(url.searchParams)).toEqual({
        To: "+12125550142",
        From: "+15005550006",
        PageSize: "50",
      });
      expect(lookup).toMatchObject({ auth: { username: "AC123", password: "token" }, timeout: 1_000 });
      // Remembered: the next redelivery asks nobody.
      const again = await invite({ env, staticData, ...marked("msg_lost") });
      expect(again.requests).toEqual([]);
      expect(again.result[0]!.json.responseBody).toBe('{"texted":true,"duplicate":true}');
    });

    it("texts when Twilio has no such message: another text, an older one, an incoming one, or none", async () => {
      const older = message({ date_created: new Date((queuedAt - 3_600) * 1000).toUTCString() });
      for (const listed of [[message({ body: "another text" })], [older], [message({ direction: "inbound" })], []]) {
        const sent = await invite({
          env,
          ...marked("msg_new"),
          answers: [listing(...listed), { statusCode: 201, body: "{}" }],
        });
        expect(sent.result[0]!.json.responseBody).toBe('{"texted":true}');
        expect(sent.requests.map((request) => (request as { method?: string }).method)).toEqual(["GET", "POST"]);
        // The lookup and the text share the 2.5 s the site's attempt leaves them.
        expect(sent.requests[1]!.timeout).toBeLessThanOrEqual(2_500);
        expect(sent.requests[1]!.timeout).toBeGreaterThanOrEqual(1_500);
      }
      // A first delivery (no header) is texted without a lookup, as before.
      const first = await invite({ env, ...redelivery("msg_first"), answers: [{ statusCode: 201, body: "{}" }] });
      expect(first.requests.map((request) => (request as { method?: string }).method)).toEqual(["POST"]);
    });

    it("answers 503 and texts nothing when Twilio does not say; a Messaging Service sender is not filtered on", async () => {
      for (const failed of [
        { statusCode: 500, body: "{}" },
        { statusCode: 200, body: "not json" },
        Object.assign(new Error("timeout"), { code: "ECONNABORTED" }),
      ]) {
        const { result, requests } = await invite({ env, ...marked("msg_unknown"), answers: [failed] });
        expect(result[0]!.json.status).toBe(503);
        expect(JSON.parse(String(result[0]!.json.responseBody))).toEqual({
          texted: false,
          error: "twilio_lookup_failed",
        });
        expect(requests).toHaveLength(1);
      }
      const service = await invite({
        env: { ...env, TWILIO_FROM: "MG0123" },
        ...marked("msg_service"),
        answers: [listing(message({ from: "+15005550099" }))],
      });
      expect(service.result[0]!.json.responseBody).toBe('{"texted":true,"duplicate":true}');
      expect(Object.fromEntries(new URL(service.requests[0]!.url).searchParams)).toEqual({
        To: "+12125550142",
        PageSize: "50",
      });
      // A header that is no time is no redelivery mark.
      const garbled = await invite({
        env,
        ...delivery(invitation, { id: "msg_g", signWith: inviteSecret, headers: { "sous-redelivery-since": "soon" } }),
        answers: [{ statusCode: 201, body: "{}" }],
      });
      expect(garbled.requests).toHaveLength(1);
    });
  });

  it("takes only its own secrets, and refuses a text that is missing or longer than one segment", async () => {
    const welcomeSigned = delivery(invitation, { signWith: secret });
    const wrong = await invite({ env: { ...env, SOUS_WEBHOOK_SECRETS: secret }, ...welcomeSigned });
    expect(wrong.result[0]!.json.status).toBe(401);
    expect(wrong.requests).toEqual([]);
    for (const body of [
      JSON.stringify({ phone: "+12125550142" }),
      JSON.stringify({ phone: "+12125550142", text: "a".repeat(161) }),
      JSON.stringify({ phone: "+12125550142", text: "" }),
    ]) {
      const { result, requests } = await invite({ env, ...signed(body) });
      expect(result[0]!.json).toMatchObject({ status: 400, responseBody: '{"error":"text"}' });
      expect(requests).toEqual([]);
    }
    const ok = await invite({
      env,
      ...signed(JSON.stringify({ phone: "+12125550142", text: "a".repeat(160) })),
      answers: [{ statusCode: 201, body: "{}" }],
    });
    expect(ok.result[0]!.json.status).toBe(200);
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
  // Where n8n itself was called: never what the signature is checked against.
  const n8nUrl = "http://127.0.0.1:5678/webhook/sous-sms-inbound";
  // The address n8n was called at, as its proxy's headers tell it: never what the signature is checked against either.
  const calledHeaders = { host: "n8n.sous.test", "x-forwarded-proto": "https" };
  const calledUrl = "https://n8n.sous.test/webhook/sous-sms-inbound";
  const read = (fields: Record<string, string>, signature = docsSignature, more: Record<string, string> = {}) =>
    run("Read the message", {
      env: { ...env, ...more },
      rawBody: form(fields),
      json: { headers: { ...calledHeaders, "x-twilio-signature": signature }, webhookUrl: n8nUrl },
    });

  it("checks X-Twilio-Signature as Twilio computes it, and answers 403 to anything else", async () => {
    expect((await read(docsFields)).result[0]!.json).toMatchObject({ status: 200, intent: "other" });
    expect((await read({ ...docsFields, Digits: "1235" })).result[0]!.json).toMatchObject({
      status: 403,
      intent: "refused",
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
  const message = (Body: string, extra: Record<string, string> = {}) => ({
    MessageSid: "SM1",
    AccountSid: "AC1",
    From: "+15035550142",
    To: "+15005550006",
    Body,
    ...extra,
  });
  async function signedFor(url: string, fields: Record<string, string>) {
    const { twilioSignature } = await import("@/tests/support/fake-twilio");
    return twilioSignature("12345", url, fields);
  }
  async function reply(Body: string, extra: Record<string, string> = {}, more: Record<string, string> = {}) {
    const fields = message(Body, extra);
    return (await read(fields, await signedFor(docsUrl, fields), more)).result[0]!.json;
  }

  it("checks the signature against TWILIO_INBOUND_URL, not the URL n8n was called at", async () => {
    const fields = message("STOP");
    expect((await read(fields, await signedFor(docsUrl, fields))).result[0]!.json).toMatchObject({ status: 200 });
    expect((await read(fields, await signedFor(n8nUrl, fields))).result[0]!.json).toMatchObject({ status: 403 });
    expect((await read(fields, await signedFor(calledUrl, fields))).result[0]!.json).toMatchObject({ status: 403 });
  });

  it("names the URL Twilio signed when TWILIO_INBOUND_URL differs from it by a slash, a scheme or n8n's own address", async () => {
    const base = "https://n8n.sous.test/webhook/sous-sms-inbound";
    const fields = message("STOP");
    for (const [configured, signed] of [
      [`${base}/`, base],
      [base, `${base}/`],
      [base.replace("https:", "http:"), base],
      ["https://typo.sous.test/webhook/sous-sms-inbound", n8nUrl],
    ]) {
      const answer = (await read(fields, await signedFor(signed!, fields), { TWILIO_INBOUND_URL: configured! }))
        .result[0]!.json;
      expect(answer).toMatchObject({ status: 403, intent: "refused" });
      expect(answer.problem).toEqual({ kind: "inbound_url", expected: configured, signedUrl: signed, tokenSet: true });
      expect(answer).not.toHaveProperty("phone");
    }
  });

  it("counts a request that looks like Twilio's but matches no URL as a signature failure; one without Twilio's header or fields is not reported", async () => {
    const fields = message("STOP");
    const forged = (await read(fields, "bm90IGEgc2lnbmF0dXJl")).result[0]!.json;
    expect(forged.problem).toEqual({ kind: "signature", expected: docsUrl, signedUrl: "", tokenSet: true });
    const noToken = (await read(fields, await signedFor(docsUrl, fields), { TWILIO_AUTH_TOKEN: "" })).result[0]!.json;
    expect(noToken.problem).toEqual({ kind: "signature", expected: docsUrl, signedUrl: "", tokenSet: false });
    expect((await read(fields, "")).result[0]!.json).not.toHaveProperty("problem");
    const withoutAccount = Object.fromEntries(Object.entries(fields).filter(([name]) => name !== "AccountSid"));
    expect((await read(withoutAccount, "bm90IGEgc2lnbmF0dXJl")).result[0]!.json).not.toHaveProperty("problem");
  });

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
    const before = Date.now();
    for (const text of [...stops, ...optOutWords])
      expect(await reply(text)).toMatchObject({
        intent: "stop",
        phone: "+15035550142",
        messageSid: "SM1",
        responseBody: expect.stringContaining("<Response></Response>"),
      });
    // When the text came, for the site to order a number's STOPs and STARTs by it.
    const { receivedAt } = (await reply("STOP")) as { receivedAt: string };
    expect(new Date(receivedAt).toISOString()).toBe(receivedAt);
    expect(Date.parse(receivedAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(receivedAt)).toBeLessThanOrEqual(Date.now());
    expect(await reply("Arrêtez", { OptOutType: "STOP" })).toMatchObject({ intent: "stop" });
    for (const text of ["Can you stop by at 5?", "stopping by later", "Ending soon?", "hello", ""])
      expect(await reply(text)).toMatchObject({ intent: "other" });
    expect(await reply("hello")).not.toHaveProperty("phone");
  });

  const emptyTwiml = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

  it("leaves HELP to Twilio by default: one reply, never the workflow's as well", async () => {
    for (const text of [...helpWords, "help?"])
      expect(await reply(text)).toEqual({
        status: 200,
        contentType: "text/xml",
        intent: "help",
        responseBody: emptyTwiml,
      });
    expect(await reply("HELP", {}, { SOUS_HELP_REPLY: "off" })).toMatchObject({ responseBody: emptyTwiml });
  });

  it("with SOUS_HELP_REPLY=on answers HELP and INFO with the HELP text and the support email, escaped as XML; START and UNSTOP with empty TwiML", async () => {
    const on = { SOUS_HELP_REPLY: "on" };
    for (const text of [...helpWords, "help?", "Info please"]) {
      expect(await reply(text, {}, on)).toEqual({
        status: 200,
        contentType: "text/xml",
        intent: "help",
        responseBody: `<?xml version="1.0" encoding="UTF-8"?><Response><Message>${smsTexts.help("help@sous.test").replaceAll("&", "&amp;").replaceAll("'", "&apos;")}</Message></Response>`,
      });
    }
    expect((await reply("HELP", {}, { ...on, SOUS_SUPPORT_EMAIL: "a<b>&c@sous.test" })).responseBody).toContain(
      "Help: a&lt;b&gt;&amp;c@sous.test.",
    );
    for (const text of [...optInWords, "start!"])
      expect(await reply(text, {}, on)).toMatchObject({
        intent: "start",
        phone: "+15035550142",
        messageSid: "SM1",
        responseBody: emptyTwiml,
      });
  });

  it("with SOUS_HELP_REPLY=on and no SOUS_SUPPORT_EMAIL, sends no address at all and reports the missing setting", async () => {
    const answer = await reply("HELP", {}, { SOUS_HELP_REPLY: "on", SOUS_SUPPORT_EMAIL: "" });
    expect(answer).toEqual({
      status: 200,
      contentType: "text/xml",
      intent: "help",
      responseBody: emptyTwiml,
      problem: { kind: "help_email" },
    });
    expect(nodeCode("Read the message")).not.toContain("example.com");
  });
});

describe("reporting a wrong setting", () => {
  const env = { SOUS_ALERT_WEBHOOK_URL: "http://alerts.test/hook" };
  const wrongUrl = {
    kind: "inbound_url",
    expected: "https://n8n.sous.test/webhook/sous-sms-inbound/",
    signedUrl: "https://n8n.sous.test/webhook/sous-sms-inbound",
    tokenSet: true,
  };
  const report = (problem: object | undefined, staticData: object, more: Record<string, string> = {}) =>
    run("Report a wrong setting", {
      env: { ...env, ...more },
      json: { status: 403, intent: "refused", ...(problem ? { problem } : {}) },
      staticData,
      answers: [{ statusCode: 200, body: "ok" }],
    });
  const alertTexts = (requests: Array<{ body: string }>) =>
    requests.map((request) => (JSON.parse(request.body) as { text: string }).text);

  it("does nothing when nothing is wrong", async () => {
    const { result, requests } = await report(undefined, {});
    expect([result, requests]).toEqual([[], []]);
  });

  it("alerts once per interval for each kind, naming both URLs and how many messages it cost, never a number", async () => {
    const staticData: { problems?: Record<string, { reportedAt: number }> } = {};
    const first = await report(wrongUrl, staticData);
    expect(first.requests.map((request) => request.url)).toEqual(["http://alerts.test/hook"]);
    const [text] = alertTexts(first.requests);
    expect(text).toContain(
      "Twilio signs them for https://n8n.sous.test/webhook/sous-sms-inbound, but TWILIO_INBOUND_URL is https://n8n.sous.test/webhook/sous-sms-inbound/.",
    );
    expect(text).toContain("(1 message since ");
    expect(text).not.toMatch(/\+?1?\d{10}/);

    const second = await report(wrongUrl, staticData);
    expect(second.requests).toEqual([]);
    expect(second.result[0]!.json).toEqual({ kind: "inbound_url", reported: false, countedSinceReport: 1 });
    // Another kind has an interval of its own.
    const other = await report(
      { kind: "signature", expected: wrongUrl.expected, signedUrl: "", tokenSet: false },
      staticData,
    );
    expect(alertTexts(other.requests)[0]).toContain("TWILIO_AUTH_TOKEN is not set.");

    // An hour on, the next one is reported with the count of those held back.
    staticData.problems!.inbound_url!.reportedAt -= 3_600;
    const later = await report(wrongUrl, staticData);
    expect(alertTexts(later.requests)[0]).toContain("(2 messages since ");
    staticData.problems!.inbound_url!.reportedAt -= 600;
    expect((await report(wrongUrl, staticData, { SOUS_ALERT_INTERVAL_MINUTES: "5" })).requests).toHaveLength(1);
  });

  it("says which setting is missing when HELP goes unanswered", async () => {
    const { requests } = await report({ kind: "help_email" }, {});
    expect(alertTexts(requests)[0]).toContain("SOUS_HELP_REPLY is on but SOUS_SUPPORT_EMAIL is not set");
  });

  it("fails the execution with the same words when there is no alert channel", async () => {
    const { error, requests } = await report(wrongUrl, {}, { SOUS_ALERT_WEBHOOK_URL: "" });
    expect(requests).toEqual([]);
    expect(error?.message).toContain("Twilio signs them for https://n8n.sous.test/webhook/sous-sms-inbound");
    expect(error?.message).toContain("(alert not set)");
  });
});

describe("recording a STOP or a START at the site", () => {
  const consent = [newWebhookSecret(), newWebhookSecret()];
  const env = {
    SOUS_SITE_URL: "http://site.test/",
    CONSENT_WEBHOOK_SECRET: consent.join(" "),
    SOUS_REVOKE_RETRY_SECONDS: "5 10 20",
    SOUS_ALERT_WEBHOOK_URL: "http://alerts.test/hook",
  };
  const stop = { intent: "stop", phone: "+16175550142", messageSid: "SM42", receivedAt: "2026-12-06T10:00:00.000Z" };
  const record = (answers: HttpAnswer[], json: object = stop, more: Record<string, string> = {}) =>
    run("Record STOP or START", { env: { ...env, ...more }, json, answers });

  /**
   * The workflow's loop: "Record STOP or START", then "Retry later?" sends an item
   * with retry: true through "Wait before retrying" back to it.
   */
  async function loop(answers: HttpAnswer[], more: Record<string, string> = {}) {
    const runs = [];
    const queue = [...answers];
    let json: object = stop;
    for (;;) {
      const run = await record(queue, json, more);
      queue.splice(0, run.requests.length);
      runs.push(run);
      const out = run.result[0]?.json;
      if (!out?.retry) return runs;
      json = out;
    }
  }

  it("posts {phone, channel, receivedAt} to /api/consent/revoke, signed with every secret, under the message's SID", async () => {
    const { result, requests } = await record([{ statusCode: 200, body: '{"recorded":true,"leadsStopped":1}' }]);
    expect(result).toEqual([
      { json: { ...stop, attempts: 1, retry: false, recorded: true, site: { recorded: true, leadsStopped: 1 } } },
    ]);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.url).toBe("http://site.test/api/consent/revoke");
    expect(JSON.parse(request!.body)).toStrictEqual({
      type: "consent.revoke",
      phone: "+16175550142",
      channel: "sms",
      receivedAt: "2026-12-06T10:00:00.000Z",
    });
    expect(request!.headers["webhook-id"]).toBe("SM42");
    for (const each of consent) expect(() => new Webhook(each).verify(request!.body, request!.headers)).not.toThrow();
  });

  it("posts a START's {type, phone, receivedAt} to /api/consent/renew, signed with every secret, under the message's SID", async () => {
    const start = {
      intent: "start",
      phone: "+16175550142",
      messageSid: "SM43",
      receivedAt: "2026-12-06T10:00:00.000Z",
    };
    const { result, requests } = await record(
      [{ statusCode: 200, body: '{"recorded":true,"leadsReleased":1}' }],
      start,
    );
    expect(result).toEqual([
      { json: { ...start, attempts: 1, retry: false, recorded: true, site: { recorded: true, leadsReleased: 1 } } },
    ]);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.url).toBe("http://site.test/api/consent/renew");
    expect(JSON.parse(request!.body)).toStrictEqual({
      type: "consent.renew",
      phone: "+16175550142",
      receivedAt: "2026-12-06T10:00:00.000Z",
    });
    expect(request!.headers["webhook-id"]).toBe("SM43");
    for (const each of consent) expect(() => new Webhook(each).verify(request!.body, request!.headers)).not.toThrow();
  });

  it("alerts without the number when a START cannot be recorded, saying the waiting sign-up stays unsent", async () => {
    const start = { intent: "start", phone: "+16175550142", messageSid: "SM43" };
    const run = await record(
      [
        { statusCode: 400, body: "" },
        { statusCode: 200, body: "ok" },
      ],
      start,
    );
    expect(run.error?.message).toBe(
      "The START (Twilio message SM43) was not recorded at the site: HTTP 400 after 1 attempt(s); alert sent.",
    );
    const alerts = run.requests.filter((request) => request.url === "http://alerts.test/hook");
    const { text } = JSON.parse(alerts[0]!.body) as { text: string };
    expect(text).toContain("a START reply could not be recorded at the site");
    expect(text).toContain("a sign-up waiting for this START stays unsent");
    for (const spelling of ["+16175550142", "6175550142", "0142"]) expect(text).not.toContain(spelling);
  });

  it("does nothing for a message that is neither STOP nor START", async () => {
    for (const intent of ["help", "other", "refused"]) expect((await record([], { intent })).requests).toEqual([]);
  });

  it("makes one attempt per run and hands n8n's Wait node the schedule's next delay while the site fails, under the same webhook-id", async () => {
    const runs = await loop([
      { statusCode: 503, body: "" },
      new Error("ECONNREFUSED"),
      { statusCode: 200, body: "{}" },
    ]);
    expect(runs.map((run) => run.requests.length)).toEqual([1, 1, 1]);
    expect(runs.map((run) => run.result[0]!.json.waitSeconds)).toEqual([5, 10, undefined]);
    expect(runs[2]!.result[0]!.json).toMatchObject({ recorded: true, retry: false, attempts: 3 });
    expect(new Set(runs.flatMap((run) => run.requests.map((request) => request.headers["webhook-id"])))).toEqual(
      new Set(["SM42"]),
    );
  });

  it("no run can outlast a task time limit: one call to the site and at most one alert, each with a timeout, 13 s in all", async () => {
    const runs = await loop(
      Array.from({ length: 4 }, () => ({ statusCode: 503, body: "" })),
      { SOUS_REVOKE_RETRY_SECONDS: "1 1 1" },
    );
    for (const run of runs) {
      expect(run.requests.length).toBeLessThanOrEqual(2);
      expect(run.requests.reduce((sum, request) => sum + (request.timeout ?? Infinity), 0)).toBeLessThanOrEqual(13_000);
    }
    expect(nodeCode("Record STOP or START")).not.toMatch(/setTimeout\(|sleep\(/);
  });

  it("by default keeps trying for more than an hour before it gives up", async () => {
    const failing = [
      ...Array.from({ length: 10 }, () => ({ statusCode: 503, body: "" })),
      { statusCode: 200, body: "" },
    ];
    const runs = await loop(failing, { SOUS_REVOKE_RETRY_SECONDS: "" });
    const waited = runs.reduce((sum, run) => sum + Number(run.result[0]?.json.waitSeconds ?? 0), 0);
    expect(waited).toBeGreaterThan(3_600);
    expect(runs.at(-1)!.error?.message).toContain(`after ${runs.length} attempt(s); alert sent.`);
    const unreadable = await loop(failing, { SOUS_REVOKE_RETRY_SECONDS: "2 ten 30" });
    expect(unreadable).toHaveLength(runs.length);
  });

  it("fails the execution and alerts without the number when the schedule is spent, or at once when the site refuses", async () => {
    const spent = await loop([
      { statusCode: 503, body: "" },
      { statusCode: 502, body: "" },
      new Error("ECONNRESET"),
      { statusCode: 503, body: "" },
      { statusCode: 200, body: "ok" },
      { statusCode: 200, body: "ok" },
    ]);
    const refused = await loop([
      { statusCode: 401, body: "" },
      { statusCode: 200, body: "ok" },
    ]);
    for (const [runs, attempts, why] of [
      [spent, 4, "HTTP 503"],
      [refused, 1, "HTTP 401"],
    ] as const) {
      const last = runs.at(-1)!;
      expect(last.error?.message).toBe(
        `The STOP (Twilio message SM42) was not recorded at the site: ${why} after ${attempts} attempt(s); alert sent.`,
      );
      const requests = runs.flatMap((run) => run.requests);
      expect(requests.filter((request) => request.url.endsWith("/api/consent/revoke"))).toHaveLength(attempts);
      const alerts = requests.filter((request) => request.url === "http://alerts.test/hook");
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
      "SOUS_SITE_URL or CONSENT_WEBHOOK_SECRET is not set after 1 attempt(s); alert not set.",
    );
  });
});

describe("contact requests", () => {
  const contactSecret = newWebhookSecret();
  const env = { SOUS_CONTACT_WEBHOOK_SECRETS: contactSecret, SOUS_CONTACT_CHAT_URL: "http://chat.test/hook" };
  const request = {
    name: "Ana <b>Lopez</b>",
    email: "ana@example.com",
    phone: "(503) 555-0142",
    clientCount: "6-15",
    currentTools: '=HYPERLINK("x") & Venmo',
    message:
      "Invoices eat my Sundays.\n<!channel> @everyone \u202egnp.exe\nEmail: ceo@example.com @here! @channel_ops\u200b\u061c",
  };
  const body = JSON.stringify(request);
  const post = (
    options: { id?: string; signWith?: string; at?: Date } = {},
    answers: HttpAnswer[] = [],
    staticData = {},
  ) =>
    run("Verify and post", {
      env,
      ...delivery(body, { signWith: contactSecret, ...options }),
      answers: answers.length ? answers : [{ statusCode: 200, body: "ok" }],
      staticData,
    });

  it("posts one chat message with every field, the visitor's words as plain text, and answers 200", async () => {
    const { result, requests } = await post();
    expect(result[0]!.json).toEqual({ status: 200, contentType: "application/json", responseBody: '{"posted":true}' });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ url: "http://chat.test/hook", timeout: 2_500 });
    expect(JSON.parse(requests[0]!.body)).toEqual({
      text: [
        "New quote request from the website",
        "Name: Ana &lt;b&gt;Lopez&lt;/b&gt;",
        "Email: ana@example.com",
        "Phone: (503) 555-0142",
        "Clients: 6-15",
        'Tools: =HYPERLINK("x") &amp; Venmo',
        "Biggest business challenge:",
        "> Invoices eat my Sundays.",
        "> &lt;!channel&gt; @\u200beveryone gnp.exe",
        "> Email: ceo@example.com @\u200bhere! @\u200bchannel_ops",
      ].join("\n"),
    });
  });

  it.each([
    ["@everyone_ops", "@\u200beveryone_ops"],
    ["@here", "@\u200bhere"],
    ["@channel", "@\u200bchannel"],
    ["@HERE:", "@\u200bHERE:"],
  ])(
    "breaks %s on its own, in a one-line field kept on its line, and an empty message is a dash",
    async (mention, broken) => {
      const lone = { name: `Ana\nEmail: boss@example.com ${mention}`, email: "ana@example.com", message: "" };
      const { requests } = await run("Verify and post", {
        env,
        ...delivery(JSON.stringify(lone), { signWith: contactSecret }),
        answers: [{ statusCode: 200, body: "ok" }],
      });
      const text = (JSON.parse(requests[0]!.body) as { text: string }).text.split("\n");
      expect(text[1]).toBe(`Name: Ana Email: boss@example.com ${broken}`);
      expect(text.slice(-2)).toStrictEqual(["Biggest business challenge:", "-"]);
      // Its working twin: an address that only contains the word is left alone.
      expect(text[2]).toBe("Email: ana@example.com");
    },
  );

  it("answers 401 to an unsigned, wrongly signed, stale or changed delivery, and posts nothing", async () => {
    for (const options of [{ signWith: newWebhookSecret() }, { at: new Date(Date.now() - 301_000) }]) {
      const { result, requests } = await post(options);
      expect([result[0]!.json.status, requests]).toEqual([401, []]);
    }
    const unsigned = await run("Verify and post", { env, rawBody: body, json: { headers: {} } });
    expect(unsigned.result[0]!.json.status).toBe(401);
    const changed = await run("Verify and post", {
      env,
      ...delivery(body, { signWith: contactSecret }),
      rawBody: body.replace("Ana", "Eve"),
    });
    expect([changed.result[0]!.json.status, changed.requests]).toEqual([401, []]);
  });

  it("answers 400 to a signed body that is no contact request", async () => {
    for (const raw of ["not json", JSON.stringify({ name: "Ana" })]) {
      const { result, requests } = await run("Verify and post", {
        env,
        ...delivery(raw, { signWith: contactSecret }),
      });
      expect([result[0]!.json.status, requests]).toEqual([400, []]);
    }
  });

  it("answers 503 while the chat is down or refuses, so the site redelivers; posts a webhook-id once", async () => {
    const staticData = {};
    for (const [chat, error] of [
      [
        { statusCode: 500, body: "" },
        { posted: false, error: "chat_refused", chatStatus: 500 },
      ],
      [
        { statusCode: 404, body: "no" },
        { posted: false, error: "chat_refused", chatStatus: 404 },
      ],
      [Object.assign(new Error("timeout"), { code: "ECONNABORTED" }), { posted: false, error: "chat_unreachable" }],
    ] as const) {
      const { result } = await post({ id: "msg_c" }, [chat], staticData);
      expect(result[0]!.json.status).toBe(503);
      expect(JSON.parse(String(result[0]!.json.responseBody))).toEqual(error);
    }
    const posted = await post({ id: "msg_c" }, [], staticData);
    expect([posted.result[0]!.json.status, posted.requests.length]).toEqual([200, 1]);
    const again = await post({ id: "msg_c" }, [], staticData);
    expect([again.result[0]!.json.responseBody, again.requests]).toEqual(['{"posted":true,"duplicate":true}', []]);
    const unset = await run("Verify and post", {
      env: { SOUS_CONTACT_WEBHOOK_SECRETS: contactSecret },
      ...delivery(body, { signWith: contactSecret }),
    });
    expect(JSON.parse(String(unset.result[0]!.json.responseBody))).toEqual({
      posted: false,
      error: "chat_not_configured",
    });
  });
});

describe("where the settings come from", () => {
  const blockedEnv = new Proxy(
    {},
    {
      get() {
        throw new Error("access to env vars denied");
      },
    },
  ) as Record<string, string>;
  const twilioAnswer: HttpAnswer[] = [{ statusCode: 201, body: "{}" }];

  it("reads n8n's Variables where $env is blocked (n8n Cloud), and $env first where both exist", async () => {
    const fromVars = await run("Verify and text", {
      env: blockedEnv,
      vars: { SOUS_WEBHOOK_SECRETS: secret, ...twilioEnv },
      ...delivery(signup),
      answers: twilioAnswer,
    });
    expect(fromVars.result[0]!.json.status).toBe(200);
    const both = await run("Verify and text", {
      env: { SOUS_WEBHOOK_SECRETS: secret, ...twilioEnv },
      vars: { SOUS_WEBHOOK_SECRETS: newWebhookSecret() },
      ...delivery(signup),
      answers: twilioAnswer,
    });
    expect(both.result[0]!.json.status).toBe(200);
  });

  it("fails with the setting to change where it can read neither, and where crypto is not allowed", async () => {
    const blocked = await run("Verify and text", { env: blockedEnv, ...delivery(signup) });
    expect(blocked.error?.message).toContain("Set N8N_BLOCK_ENV_ACCESS_IN_NODE=false");
    const noCrypto = await run("Verify and text", {
      env: { SOUS_WEBHOOK_SECRETS: secret },
      ...delivery(signup),
      requireModule: (name) => {
        throw new Error(`Module '${name}' is disallowed`);
      },
    });
    expect(noCrypto.error?.message).toBe(
      "Module 'crypto' is disallowed: set NODE_FUNCTION_ALLOW_BUILTIN=crypto in n8n's environment",
    );
  });
});

describe("the verification Code node of docs/webhooks.md", () => {
  const shared = readFileSync(path.join("workflows", "n8n", "code", "shared.js"), "utf8");
  const block = verificationBlock();
  /** Each top-level declaration of a source, with the comment above it. */
  const declarations = (source: string) =>
    [
      ...source.matchAll(/^(?:\/\*\*[\s\S]*?\*\/\n)?(?:async function|function|const) \w+[\s\S]*?\n}\)?\(?\)?;?$/gm),
    ].map((match) => match[0]);

  it("is made of the workflow's own functions, word for word", () => {
    const pieces = declarations(block).filter((piece) => !piece.startsWith("const SECRETS_SETTING"));
    expect(pieces.length).toBeGreaterThanOrEqual(9);
    for (const piece of pieces) expect(shared).toContain(piece);
    expect(block).toContain(
      "verifyStandardWebhook(item.headers ?? {}, body, secretsOf(setting(SECRETS_SETTING)), nowSeconds)",
    );
  });
});

describe("each Code node of sms-program.json", () => {
  const nodes = buildSmsProgram()
    .flatMap((workflow) => workflow.nodes)
    .filter((node): node is typeof node & { parameters: { jsCode: string } } =>
      Boolean((node as { parameters?: { jsCode?: string } }).parameters?.jsCode),
    );
  const declared = (code: string) =>
    [...code.matchAll(/^(?:async )?function (\w+)|^const (\w+) =/gm)].map(([, fn, value]) => (fn ?? value)!);
  const bare = (code: string) => code.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/[^\n]*/g, "");

  it("carries only the helpers of shared.js it calls: every name it declares is used in it", () => {
    expect(nodes).toHaveLength(6);
    for (const node of nodes) {
      const code = bare(node.parameters.jsCode);
      const unused = declared(node.parameters.jsCode).filter(
        (name) => code.match(new RegExp(`(?<![\\w$])${name.replace("$", "\\$")}(?![\\w$])`, "g"))!.length < 2,
      );
      expect(unused, node.name).toStrictEqual([]);
    }
  });

  it("is far smaller than shared.js whole in every node: the node that reads no webhook has no signing", () => {
    const whole = readFileSync(path.join("workflows", "n8n", "code", "shared.js"), "utf8");
    const report = nodes.find((node) => node.name === "Report a wrong setting")!.parameters.jsCode;
    expect(report).not.toContain("function verifyStandardWebhook");
    expect(report).not.toContain("function sendText");
    expect(report.length).toBeLessThan(whole.length);
  });
});
