// @ts-check
/**
 * `npm start`: Next's documented custom server, adding what `next start` cannot: the socket's address in a header no
 * client can send; TRACE, CONNECT and unwanted bodies refused unread; a stop that lets work finish, then exits 0.
 */
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import { createServer, STATUS_CODES } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { format, parseArgs } from "node:util";
import { logLine } from "../server/escape-controls.mjs";
import { jsonFrameworkLogs } from "../server/framework-log.mjs";
import { EVERY_PATH } from "../server/web/every-path.mjs";
import { actionPagesOf, allowOf, bodyVerdict, optionsAllow, pathOf } from "../server/web/request-bodies.mjs";
import { runExitWork } from "./exit-work.mjs";

const started = performance.now();
// Every line this process prints is one JSON object, from the first: Next's own ("Running next.config.ts") included.
jsonFrameworkLogs();

/**
 * One of this server's own lines, as the app writes its own (server/log.ts): one JSON object, every control, format,
 * separator and astral character escaped, so the log drain reads one event per line and gets the text back.
 * @param {"info" | "error"} level @param {Record<string, unknown>} fields
 */
const say = (level, fields) => (level === "error" ? console.error : console.info)(logLine(level, fields));
/** What a caught value says, an error with its stack, for a line's `message`. @param {unknown} error */
const told = (error) => format(error);

process.env.NODE_ENV ||= "production";
const { values } = parseArgs({
  options: { port: { type: "string", short: "p" }, hostname: { type: "string", short: "H" } },
});
const port = Number(values.port ?? process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  say("error", { event: "start_refused", reason: "port", port: String(values.port ?? process.env.PORT) });
  process.exit(1);
}
const hostname = values.hostname;

const header = `x-sous-socket-${randomBytes(8).toString("hex")}`;
process.env.SOUS_SOCKET_ADDRESS_HEADER = header;

// Imported once NODE_ENV is set: Next reads it as it loads.
const { default: next } = await import("next");
// The project this script belongs to, wherever it is started from.
const dir = fileURLToPath(new URL("..", import.meta.url));
// Next adds an "upgrade" listener to the server it is given (else to the first request's), and leaves an upgrade that
// no route matches open for good, for a WebSocket server of the app's own. The site has none: Next gets a server of its
// own that never upgrades, and Node hands an Upgrade here as the plain request it also is.
const neverUpgrades = /** @type {import("node:http").Server} */ (/** @type {unknown} */ (new EventEmitter()));
// Next is told "localhost" whatever address this server listens on: its middleware sees 127.0.0.1 as localhost, and
// would proxy a rewrite to another host over HTTP (the console's 404, middleware.ts) instead of serving it.
const app = next({ dev: false, dir, hostname: "localhost", port, httpServer: neverUpgrades });
const handle = app.getRequestHandler();

/**
 * The headers next.config.ts gives every response (the security headers), as
 * the build wrote them: the answers made here, before Next, carry them too.
 * @returns {[string, string][]}
 */
function everyResponseHeaders() {
  /** @type {{ headers?: { source: string, headers: { key: string, value: string }[] }[] }} */
  const manifest = JSON.parse(readFileSync(path.join(dir, ".next", "routes-manifest.json"), "utf8"));
  const all = manifest.headers?.find((rule) => rule.source === EVERY_PATH);
  return (all?.headers ?? []).map(({ key, value }) => [key, value]);
}
const securityHeaders = everyResponseHeaders();

/** The pages that hold a server action, which take a form's post: from the build's server-reference manifest. */
function actionPages() {
  return actionPagesOf(
    JSON.parse(readFileSync(path.join(dir, ".next", "server", "server-reference-manifest.json"), "utf8")),
  );
}
const actionPagePatterns = actionPages();

/** A plain-text answer made here, never by Next. @param {number} status @param {string} text */
function plainAnswer(status, text, extra = {}) {
  return {
    status,
    text,
    headers: Object.fromEntries([
      ...securityHeaders,
      ["Content-Type", "text/plain; charset=utf-8"],
      ["Cache-Control", "no-store"],
      ...Object.entries(extra),
    ]),
  };
}
// Methods no route of the site answers, which Next would turn into a 500 and a stack trace.
const refusedMethods = new Set(["TRACE", "CONNECT"]);
/** A 405 that names the methods the path does take. @param {string} pathname */
const methodNotAllowed = (pathname) =>
  plainAnswer(405, "Method Not Allowed", { Allow: allowOf(pathname, actionPagePatterns) });
/** An answer as the bytes of an HTTP/1.1 response that closes its connection. @param {ReturnType<typeof plainAnswer>} answer */
function rawAnswer({ status, text, headers }) {
  const head = Object.entries({ ...headers, "Content-Length": String(Buffer.byteLength(text)), Connection: "close" });
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n${text}`;
}

// How long a refused body's connection stays open, unread, for its client to read the answer before it is reset.
const LINGER_MS = 2_000;

/**
 * Refused without reading a byte more: answered in its turn on the connection, then the socket left unread (the
 * client's writes stall rather than fail, so it reads the answer) until it closes or LINGER_MS pass.
 * @param {import("node:http").IncomingMessage} request @param {import("node:http").ServerResponse} response
 * @param {ReturnType<typeof plainAnswer>} answer
 */
function refuseUnread(request, response, answer) {
  request.socket.pause();
  const inTurn = (/** @type {import("node:net").Socket} */ socket) => {
    socket.pause();
    socket.end(rawAnswer(answer));
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
  if (response.socket) inTurn(response.socket);
  else response.once("socket", inTurn);
}

// A body no route takes, answered before it is read; the connection closes (rawAnswer), so the rest is never read.
/** @param {403 | 405 | 411 | 413} status @param {string} pathname */
const refusedBody = (status, pathname) =>
  status === 405
    ? methodNotAllowed(pathname)
    : plainAnswer(status, { 403: "Forbidden", 411: "Length Required", 413: "Payload Too Large" }[status]);

/**
 * One request, before Next: refused here, or handed to Next. A request that
 * asked to be told to go on (`Expect: 100-continue`) is told so only once its
 * body is one a route takes: a refused one is answered without inviting it.
 * @param {import("node:http").IncomingMessage} request @param {import("node:http").ServerResponse} response
 */
function serve(request, response, expectsContinue = false) {
  const pathname = pathOf(request.url ?? "/");
  if (refusedMethods.has(request.method ?? "")) {
    refuseUnread(request, response, methodNotAllowed(pathname));
    return;
  }
  const verdict = bodyVerdict(
    {
      method: request.method ?? "",
      pathname,
      contentLength: request.headers["content-length"],
      chunked: request.headers["transfer-encoding"] !== undefined,
      origin: request.headers.origin,
      host: /** @type {string | undefined} */ (request.headers["x-forwarded-host"]) ?? request.headers.host,
      nextAction: request.headers["next-action"] !== undefined,
    },
    actionPagePatterns,
  );
  if (!verdict.take) {
    refuseUnread(request, response, refusedBody(verdict.status, pathname));
    return;
  }
  if (expectsContinue) response.writeContinue();
  const allow = request.method === "OPTIONS" ? optionsAllow(pathname, actionPagePatterns) : undefined;
  if (allow) {
    const options = plainAnswer(204, "", { Allow: allow });
    response.writeHead(options.status, options.headers).end();
    return;
  }
  // Next writes a 405's Allow as one header per method: one header, as HTTP lists them.
  const setHeader = response.setHeader.bind(response);
  response.setHeader = (name, value) =>
    setHeader(name, Array.isArray(value) && name.toLowerCase() === "allow" ? value.join(", ") : value);
  // An Upgrade is served as a plain request (above), and its connection not kept. Nor is one whose answer comes before
  // its body was read whole (a route's 413 past its limit, a 404 that reads nothing): Node would read the rest of the
  // body on, to the end, before the connection could serve another request.
  if (request.headers.upgrade !== undefined) response.setHeader("Connection", "close");
  const writeHead = response.writeHead.bind(response);
  response.writeHead = /** @type {typeof response.writeHead} */ (
    (/** @type {number} */ status, /** @type {any[]} */ ...rest) => {
      if (status === 413 || !request.complete) response.setHeader("Connection", "close");
      return writeHead(status, ...rest);
    }
  );
  // Set on every request, over anything a client sent under that name.
  request.headers[header] = request.socket.remoteAddress ?? "";
  handle(request, response).catch((/** @type {unknown} */ error) => {
    say("error", { event: "request_failed", message: told(error) });
    const failed = plainAnswer(500, "Internal Server Error");
    if (!response.headersSent) response.writeHead(failed.status, failed.headers);
    response.end(failed.text);
  });
}

// Timeouts of every connection: the request's headers within 10 s, its whole body within 30 s, an idle keep-alive
// connection closed after 5 s, checked every second; a socket silent for 2 minutes (a response never read) is closed.
const server = createServer(
  { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 },
  (request, response) => serve(request, response),
);
// With a listener here Node no longer answers "100 Continue" by itself: serve does, for a body it takes.
server.on("checkContinue", (request, response) => serve(request, response, true));
// Node hands CONNECT to this event, not to the request handler: answered 405 too, then closed.
server.on("connect", (_request, socket) => socket.end(rawAnswer(methodNotAllowed("/"))));
server.setTimeout(120_000, (socket) => socket.destroy());
// Node's headersTimeout counts from a request's first byte: a connection that never sends one would stay open. Each
// connection must complete its first request's headers within the same 10 s.
const spoken = new WeakSet();
server.on("request", (/** @type {import("node:http").IncomingMessage} */ request) => spoken.add(request.socket));
server.on("connection", (/** @type {import("node:net").Socket} */ socket) => {
  const silent = setTimeout(() => spoken.has(socket) || socket.destroy(), server.headersTimeout).unref();
  socket.once("close", () => clearTimeout(silent));
});
await app.prepare();

// The longest the app's exit work may take: past it, the process exits anyway.
const EXIT_WORK_MS = 60_000;

/** What the app registered for its exit (server/ops/shutdown.ts), through the process-wide slot "shutdown". */
function exitTasks() {
  /** @type {Map<string, () => Promise<unknown>> | undefined} */
  const tasks = /** @type {any} */ (globalThis)[Symbol.for("sous.process-wide")]?.get("shutdown");
  return tasks ?? new Map();
}

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  server.close(async (error) => {
    if (error) say("error", { event: "stop_failed", step: "connections", message: told(error) });
    const unfinished = !(await runExitWork(exitTasks(), { limitMs: EXIT_WORK_MS }));
    await app
      .close()
      .catch((/** @type {unknown} */ closing) =>
        say("error", { event: "stop_failed", step: "next", message: told(closing) }),
      );
    process.exit(error || unfinished ? 1 : 0);
  });
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

server.on("error", (error) => {
  say("error", { event: "listen_failed", message: error.message });
  process.exit(1);
});
server.listen(port, hostname, () => {
  const address = server.address();
  const shown = typeof address === "object" && address ? address.port : port;
  const url = `http://${hostname ?? "localhost"}:${shown}`;
  say("info", { event: "ready", message: `Ready in ${Math.round(performance.now() - started)}ms on ${url}`, url });
});
