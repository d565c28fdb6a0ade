import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { incomingSmsFields, postIncomingSms as postSignedSms } from "@/scripts/twilio-inbound";

/**
 * A stand-in for Twilio's Messages API on 127.0.0.1 (the real one cannot be
 * reached from here): it checks the account's basic auth as Twilio does,
 * records every message it accepts and every call it gets, lists the messages
 * to a number (newest first, as Twilio's GET does), and can be told to fail
 * the way Twilio fails.
 */

export type TwilioCall = {
  method: string;
  /** With the query, for a GET. */
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
  /** Accepts every message to this number, whatever the mode (a refusal set for it still wins). */
  accept(to: string): void;
  /** Takes the next message to this number at once, and answers only after `ms`: later than its caller waits. */
  answerLate(to: string, ms: number): void;
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
  const acceptedAlways = new Set<string>();
  const late = new Map<string, number>();
  let counter = 0;
  const expectedAuth = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const fields = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
      const authorized = req.headers.authorization === expectedAuth;
      const call: TwilioCall = {
        method: req.method ?? "",
        path: req.url ?? "",
        authorized,
        fields: req.method === "GET" ? {} : fields,
        answered: 201,
        at: Date.now(),
      };
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
      const [pathname, query = ""] = (req.url ?? "").split("?");
      const known = pathname === `/2010-04-01/Accounts/${accountSid}/Messages.json`;
      if (!known || (req.method !== "POST" && req.method !== "GET"))
        return json(404, { code: 20404, message: "The requested resource was not found", status: 404 });
      if (!authorized) return json(401, { code: 20003, message: "Authenticate", status: 401 });
      if (req.method === "GET") return json(200, { messages: listed(new URLSearchParams(query)) });
      const refusal = refused.get(fields.To ?? "");
      if (refusal !== undefined) return json(400, { code: refusal, message: `Error ${refusal}`, status: 400 });
      if (current.kind === "error" && !acceptedAlways.has(fields.To ?? ""))
        return json(current.status, { code: current.code, message: `Error ${current.code}`, status: current.status });
      counter += 1;
      const message = {
        sid: `SM${String(counter).padStart(32, "0")}`,
        status: "queued",
        to: fields.To,
        body: fields.Body,
      };
      const delay = late.get(fields.To ?? "");
      if (delay === undefined) return json(201, message);
      late.delete(fields.To ?? "");
      call.answered = 201;
      setTimeout(() => json(201, message), delay);
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

  /** Twilio's list of messages: to the number (and from the sender) filtered on, newest first, at most PageSize. */
  function listed(filters: URLSearchParams) {
    const to = filters.get("To");
    const from = filters.get("From");
    return acceptedAt()
      .filter((message) => (!to || message.to === to) && (!from || message.from === from))
      .reverse()
      .slice(0, Number(filters.get("PageSize") ?? 50))
      .map((message) => ({
        to: message.to,
        from: message.from,
        body: message.body,
        direction: "outbound-api",
        date_created: new Date(message.at).toUTCString().replace("GMT", "+0000"),
      }));
  }

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
    accept(to) {
      acceptedAlways.add(to);
    },
    answerLate(to, ms) {
      late.set(to, ms);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export { twilioSignature } from "@/scripts/twilio-inbound";

/** An incoming SMS as Twilio posts it to the messaging webhook, signed (or not). */
export async function postIncomingSms(
  inboundUrl: string,
  target: string,
  fields: { From: string; Body: string; OptOutType?: string },
  options: { authToken?: string; accountSid?: string; signature?: string } = {},
) {
  return postSignedSms(inboundUrl, target, incomingSmsFields(fields, { accountSid: options.accountSid }), options);
}
