import { createHmac, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A stand-in for Twilio's Messages API on 127.0.0.1 (the real one cannot be
 * reached from here): it checks the account's basic auth as Twilio does,
 * records every message it accepts and every call it gets, and can be told to
 * fail the way Twilio fails.
 */

export type TwilioCall = {
  path: string;
  authorized: boolean;
  fields: Record<string, string>;
  answered: number | "hang";
  at: number;
};

/** How the next calls are answered: accepted (201), an error status with Twilio's JSON, or never. */
export type TwilioMode = { kind: "accept" } | { kind: "error"; status: number; code: number } | { kind: "hang" };

export type FakeTwilio = {
  url: string;
  accountSid: string;
  authToken: string;
  calls: TwilioCall[];
  /** The messages Twilio accepted: what a chef's phone would get. */
  accepted(): Array<{ to: string; from: string; body: string }>;
  /** The same, each with when Twilio took it (ms since the epoch). */
  acceptedAt(): Array<{ to: string; from: string; body: string; at: number }>;
  mode(next: TwilioMode): void;
  /** Refuses every message to this number with Twilio's 400 and this code (21610: it texted STOP), whatever the mode. */
  refuse(to: string, code: number): void;
  close(): Promise<void>;
};

export async function startFakeTwilio(
  accountSid = "AC00000000000000000000000000000001",
  authToken = "fake-twilio-auth-token-0001",
): Promise<FakeTwilio> {
  const calls: TwilioCall[] = [];
  const sockets = new Set<Socket>();
  let current: TwilioMode = { kind: "accept" };
  const refused = new Map<string, number>();
  let counter = 0;
  const expectedAuth = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const fields = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
      const authorized = req.headers.authorization === expectedAuth;
      const call: TwilioCall = { path: req.url ?? "", authorized, fields, answered: 201, at: Date.now() };
      calls.push(call);
      const json = (status: number, body: unknown) => {
        call.answered = status;
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (current.kind === "hang") {
        call.answered = "hang";
        return;
      }
      if (req.method !== "POST" || req.url !== `/2010-04-01/Accounts/${accountSid}/Messages.json`)
        return json(404, { code: 20404, message: "The requested resource was not found", status: 404 });
      if (!authorized) return json(401, { code: 20003, message: "Authenticate", status: 401 });
      const refusal = refused.get(fields.To ?? "");
      if (refusal !== undefined) return json(400, { code: refusal, message: `Error ${refusal}`, status: 400 });
      if (current.kind === "error")
        return json(current.status, { code: current.code, message: `Error ${current.code}`, status: current.status });
      counter += 1;
      json(201, { sid: `SM${String(counter).padStart(32, "0")}`, status: "queued", to: fields.To, body: fields.Body });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const acceptedAt = () =>
    calls
      .filter((call) => call.answered === 201)
      .map((call) => ({
        to: call.fields.To ?? "",
        from: call.fields.From ?? call.fields.MessagingServiceSid ?? "",
        body: call.fields.Body ?? "",
        at: call.at,
      }));

  return {
    url: `http://127.0.0.1:${port}`,
    accountSid,
    authToken,
    calls,
    accepted: () => acceptedAt().map(({ to, from, body }) => ({ to, from, body })),
    acceptedAt,
    mode(next) {
      current = next;
    },
    refuse(to, code) {
      refused.set(to, code);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Twilio's X-Twilio-Signature for a form post to `url`, computed as Twilio's docs describe it. */
export function twilioSignature(authToken: string, url: string, fields: Record<string, string>) {
  const signed =
    url +
    Object.keys(fields)
      .sort()
      .map((name) => name + fields[name])
      .join("");
  return createHmac("sha1", authToken).update(signed).digest("base64");
}

/** An incoming SMS as Twilio posts it to the messaging webhook, signed (or not). */
export async function postIncomingSms(
  inboundUrl: string,
  target: string,
  fields: { From: string; Body: string; OptOutType?: string },
  options: { authToken?: string; accountSid?: string; signature?: string } = {},
) {
  const messageSid = `SM${randomBytes(16).toString("hex")}`;
  const form: Record<string, string> = {
    ToCountry: "US",
    SmsMessageSid: messageSid,
    NumMedia: "0",
    MessageSid: messageSid,
    AccountSid: options.accountSid ?? "AC00000000000000000000000000000001",
    To: "+15005550006",
    NumSegments: "1",
    ApiVersion: "2010-04-01",
    ...fields,
  };
  const signature =
    options.signature ?? (options.authToken ? twilioSignature(options.authToken, inboundUrl, form) : undefined);
  const response = await fetch(target, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(signature ? { "x-twilio-signature": signature } : {}),
    },
    body: new URLSearchParams(form).toString(),
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    text: await response.text(),
    messageSid,
  };
}
