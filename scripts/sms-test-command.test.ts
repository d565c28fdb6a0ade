import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { smsTestCommand, testTextOf, usage } from "./sms-test-command";
import { twilioSignature } from "./twilio-inbound";

/** A stand-in for the workflow's inbound webhook on 127.0.0.1: it keeps what it was sent and answers as told. */
const received: { headers: IncomingMessage["headers"]; body: string }[] = [];
let answer = { status: 200, body: '{"ok":true}' };
const server = createServer((request, response) => {
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString()));
  request.on("end", () => {
    received.push({ headers: request.headers, body });
    response.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
  });
});
let url: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/sous-sms-inbound`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const token = "auth-token-of-the-account";

describe("twilioSignature", () => {
  it("signs as Twilio's own example does (its 'Validating signatures' page: token 12345)", () => {
    const fields = {
      CallSid: "CA1234567890ABCDE",
      Caller: "+12349013030",
      Digits: "1234",
      From: "+12349013030",
      To: "+18005551212",
    };
    expect(twilioSignature("12345", "https://mycompany.com/myapp.php?foo=1&bar=2", fields)).toBe(
      "0/KCTR6DLpKmkAf8muzZqo1nDgQ=",
    );
  });
});

describe("npm run sms:test", () => {
  it("posts the text Twilio would, signed for the inbound URL, and says what to look at next", async () => {
    answer = { status: 200, body: '{"ok":true}' };
    const lines: string[] = [];
    await smsTestCommand(
      ["stop", "(503) 555-0142"],
      { TWILIO_INBOUND_URL: url, TWILIO_AUTH_TOKEN: token, TWILIO_FROM: "+15005550006" },
      (line) => lines.push(line),
    );
    const sent = received.at(-1)!;
    const form = Object.fromEntries(new URLSearchParams(sent.body));
    expect(form).toMatchObject({ From: "+15035550142", Body: "STOP", OptOutType: "STOP", To: "+15005550006" });
    expect(form.MessageSid).toMatch(/^SM[0-9a-f]{32}$/);
    expect(sent.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(sent.headers["x-twilio-signature"]).toBe(twilioSignature(token, url, form));
    expect(lines).toStrictEqual([
      `Posted a signed STOP from +15035550142 to ${url} (message ${form.MessageSid}).`,
      'The workflow answered 200: {"ok":true}',
      `npm run consent -- show "+15035550142" now lists this STOP (message ${form.MessageSid}) and says whether consent is in force.`,
    ]);
  });

  it("sends START and HELP as their own words, --url over the setting", async () => {
    const lines: string[] = [];
    await smsTestCommand(
      ["START", "+1 503 555 0142", "--url", url],
      { TWILIO_INBOUND_URL: "https://elsewhere.example/x", TWILIO_AUTH_TOKEN: token },
      (line) => lines.push(line),
    );
    expect(Object.fromEntries(new URLSearchParams(received.at(-1)!.body))).toMatchObject({
      Body: "START",
      OptOutType: "START",
    });
    await smsTestCommand(["help", "5035550142"], { TWILIO_INBOUND_URL: url, TWILIO_AUTH_TOKEN: token }, (line) =>
      lines.push(line),
    );
    expect(Object.fromEntries(new URLSearchParams(received.at(-1)!.body))).toMatchObject({
      Body: "HELP",
      OptOutType: "HELP",
    });
    expect(lines.at(-1)).toBe("The workflow answers HELP itself only with SOUS_HELP_REPLY=on; nothing is recorded.");
  });

  it("fails with the reason when the workflow refuses the signature or fails, printing its answer escaped", async () => {
    answer = { status: 403, body: "forbidden\u001b[2J" };
    const lines: string[] = [];
    await expect(
      smsTestCommand(["STOP", "5035550142"], { TWILIO_INBOUND_URL: url, TWILIO_AUTH_TOKEN: token }, (line) =>
        lines.push(line),
      ),
    ).rejects.toThrow("403: the workflow refused the signature");
    expect(lines.at(-1)).toBe("The workflow answered 403: forbidden\\u{001b}[2J");
    answer = { status: 500, body: "" };
    await expect(
      smsTestCommand(["STOP", "5035550142"], { TWILIO_INBOUND_URL: url, TWILIO_AUTH_TOKEN: token }, () => {}),
    ).rejects.toThrow("500: see the workflow's executions");
    answer = { status: 200, body: '{"ok":true}' };
  });

  it("--via posts to another address, still signed for the inbound URL, and says both", async () => {
    answer = { status: 200, body: '{"ok":true}' };
    const lines: string[] = [];
    const inbound = "https://n8n.example/webhook/sous-sms-inbound";
    await smsTestCommand(
      ["STOP", "5035550142", "--via", url],
      { TWILIO_INBOUND_URL: inbound, TWILIO_AUTH_TOKEN: token },
      (line) => lines.push(line),
    );
    const sent = received.at(-1)!;
    const form = Object.fromEntries(new URLSearchParams(sent.body));
    expect(sent.headers["x-twilio-signature"]).toBe(twilioSignature(token, inbound, form));
    expect(sent.headers["x-twilio-signature"]).not.toBe(twilioSignature(token, url, form));
    expect(lines[0]).toBe(
      `Posted a signed STOP from +15035550142 to ${url}, signed for ${inbound} (message ${form.MessageSid}).`,
    );
    const env = { TWILIO_INBOUND_URL: inbound, TWILIO_AUTH_TOKEN: token };
    expect(() => testTextOf(["STOP", "5035550142", "--via", "nope"], env)).toThrow("not an address: nope");
    expect(() => testTextOf(["STOP", "5035550142", "--via", "file:///etc/passwd"], env)).toThrow(
      "--via must be an http or https address",
    );
  });

  it("names the address it could not reach", async () => {
    // A port nothing listens on: taken, then let go.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const nowhere = `http://127.0.0.1:${port}/x`;
    await expect(
      smsTestCommand(["STOP", "5035550142", "--url", nowhere], { TWILIO_AUTH_TOKEN: token }, () => {}),
    ).rejects.toThrow(`could not reach ${nowhere}: ECONNREFUSED`);
  });

  it("refuses a bad call before sending anything", () => {
    const env = { TWILIO_INBOUND_URL: "https://n8n.example/webhook/sous-sms-inbound", TWILIO_AUTH_TOKEN: token };
    const before = received.length;
    for (const [args, message] of [
      [["STOPP", "5035550142"], usage],
      [["STOP"], usage],
      [["STOP", "5035550142", "extra"], usage],
      [["STOP", "12"], "not a phone number: 12"],
    ] as const)
      expect(() => testTextOf([...args], env), args.join(" ")).toThrow(message);
    expect(() => testTextOf(["STOP", "5035550142"], { TWILIO_AUTH_TOKEN: token })).toThrow("set TWILIO_INBOUND_URL");
    expect(() => testTextOf(["STOP", "5035550142", "--url", "nope"], env)).toThrow("not a URL: nope");
    expect(() => testTextOf(["STOP", "5035550142", "--url", "http://n8n.example/x"], env)).toThrow("must be https");
    expect(() => testTextOf(["STOP", "5035550142"], { TWILIO_INBOUND_URL: env.TWILIO_INBOUND_URL })).toThrow(
      "set TWILIO_AUTH_TOKEN",
    );
    // Its working twin: the same call with both settings is ready to send.
    expect(testTextOf(["STOP", "5035550142"], env)).toMatchObject({ url: env.TWILIO_INBOUND_URL, keyword: "STOP" });
    expect(received.length).toBe(before);
  });
});
