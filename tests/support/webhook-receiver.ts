import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A stand-in for the operator's n8n/Zapier/Make webhook, on 127.0.0.1.
 *
 * It records every request and answers 200, unless the JSON body's `name`
 * carries a directive, so parallel tests each choose their own outcome:
 *   [status=503]  answer that status        [redirect]  answer 302 elsewhere
 *   [reset]       drop the connection       [hang]      never answer
 *   [delay=800]   wait, then answer 200     [fail=2]    503 for the first two
 *                                                       attempts of a webhook-id
 *   [starting=2]  n8n's own 200 while it starts (text/html), for the first
 *                 two attempts of a webhook-id
 *   [texted]      200 {"texted":true}, as the SMS workflow answers a welcome it texted
 *   [refused=21614]  200 {"texted":false,"code":21614}, a number the carrier refused
 * GET /__received returns the recorded requests as JSON (for other processes).
 * `outage(503)` makes it answer every request with that status, as a workflow
 * that is down does, until `outage(undefined)`; `outage("hang")` answers none.
 * `slow(ms)` answers every request 200 after that long, until `slow(undefined)`.
 */

export type ReceivedRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
  answered: number | "reset" | "hang";
  at: number;
};

export type WebhookReceiver = {
  url: string;
  received: ReceivedRequest[];
  /** Requests whose JSON `name` contains the given token. */
  withName(token: string): ReceivedRequest[];
  /** Answers every request with `status` (or never, "hang") from now on; undefined ends the outage. */
  outage(status: number | "hang" | undefined): void;
  /** Answers every request 200 after `ms`; undefined ends it. */
  slow(ms: number | undefined): void;
  close(): Promise<void>;
};

function directive(json: unknown, key: string): string | undefined {
  const name = typeof json === "object" && json && "name" in json ? String(json.name) : "";
  const match = name.match(new RegExp(`\\[${key}(?:=(\\d+))?\\]`));
  return match ? (match[1] ?? "") : undefined;
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const attemptsById = new Map<string, number>();
  const sockets = new Set<Socket>();
  let outageStatus: number | "hang" | undefined;
  let slowMs: number | undefined;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method === "GET" && req.url === "/__received") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(received));
        return;
      }
      const body = Buffer.concat(chunks).toString("utf8");
      const json = parseJson(body);
      const record: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
        json,
        answered: 200,
        at: Date.now(),
      };
      received.push(record);

      const id = String(req.headers["webhook-id"] ?? body);
      const attempt = (attemptsById.get(id) ?? 0) + 1;
      attemptsById.set(id, attempt);

      const answer = (status: number, headers: Record<string, string> = {}) => {
        record.answered = status;
        res.writeHead(status, { "content-type": "text/plain", ...headers });
        res.end(status < 300 ? "ok" : "nope");
      };

      if (outageStatus === "hang") {
        record.answered = "hang";
      } else if (outageStatus !== undefined) {
        answer(outageStatus);
      } else if (slowMs !== undefined) {
        setTimeout(() => answer(200), slowMs);
      } else if (directive(json, "reset") !== undefined) {
        record.answered = "reset";
        req.socket.destroy();
      } else if (directive(json, "hang") !== undefined) {
        record.answered = "hang";
      } else if (directive(json, "redirect") !== undefined) {
        answer(302, { location: "/elsewhere" });
      } else if (directive(json, "status") !== undefined) {
        answer(Number(directive(json, "status")));
      } else if (Number(directive(json, "fail") ?? 0) >= attempt) {
        answer(503);
      } else if (Number(directive(json, "starting") ?? 0) >= attempt) {
        // What n8n answers any request between connecting its database and finishing its migrations.
        record.answered = 200;
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("n8n is starting up. Please wait");
      } else if (directive(json, "texted") !== undefined || directive(json, "refused") !== undefined) {
        const code = directive(json, "refused");
        record.answered = 200;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(code === undefined ? { texted: true } : { texted: false, code: Number(code) }));
      } else if (directive(json, "delay") !== undefined) {
        setTimeout(() => answer(200), Number(directive(json, "delay")));
      } else {
        answer(200);
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: actualPort } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${actualPort}`,
    received,
    withName: (token) =>
      received.filter((request) => {
        const json = request.json;
        return typeof json === "object" && json !== null && "name" in json && String(json.name).includes(token);
      }),
    outage: (status) => {
      outageStatus = status;
    },
    slow: (ms) => {
      slowMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
