// @ts-check
/**
 * `npm start`: serves the production build as `next start` does, through
 * Next's own request handler (its documented custom server), with one thing
 * `next start` cannot give the app: the address of the connection itself.
 *
 * `next start` fills X-Forwarded-For with the socket's address only when a
 * request comes without one, so a client that sends its own has it believed.
 * Here every request carries the socket's address in a header whose name is
 * made up at start and handed to the app in SOUS_SOCKET_ADDRESS_HEADER: a
 * client cannot send it, and under plain `next start` or `next dev` the app
 * knows it is missing. TRUSTED_PROXY_HOPS=0 reads it (server/rate-limit/client-address.ts).
 *
 * Options as `next start`: -p/--port (or PORT, default 3000), -H/--hostname
 * (default every interface). SIGTERM or SIGINT stops taking connections, lets
 * the requests under way finish, then the work the app registered for its
 * exit (server/shutdown.ts: the redelivery attempts already sent, the alerts
 * under way), closes Next, and exits 0: a stop asked for is not a failure.
 *
 * TRACE and CONNECT never reach Next: they get 405 here, with the headers
 * every response carries (read from the build's routes manifest).
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const started = performance.now();
process.env.NODE_ENV ||= "production";
const { values } = parseArgs({
  options: { port: { type: "string", short: "p" }, hostname: { type: "string", short: "H" } },
});
const port = Number(values.port ?? process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`Invalid port: ${values.port ?? process.env.PORT}`);
  process.exit(1);
}
const hostname = values.hostname;

const header = `x-sous-socket-${randomBytes(8).toString("hex")}`;
process.env.SOUS_SOCKET_ADDRESS_HEADER = header;

// Imported once NODE_ENV is set: Next reads it as it loads.
const { default: next } = await import("next");
// The project this script belongs to, wherever it is started from.
const dir = fileURLToPath(new URL("..", import.meta.url));
const app = next({ dev: false, dir, hostname: hostname ?? "localhost", port });
const handle = app.getRequestHandler();

/**
 * The headers next.config.ts gives every response (the security headers), as
 * the build wrote them: the answers made here, before Next, carry them too.
 * @returns {[string, string][]}
 */
function everyResponseHeaders() {
  const distDir = process.env.E2E_TEST_BUILD === "1" ? ".next-e2e" : ".next";
  /** @type {{ headers?: { source: string, headers: { key: string, value: string }[] }[] }} */
  const manifest = JSON.parse(readFileSync(path.join(dir, distDir, "routes-manifest.json"), "utf8"));
  const all = manifest.headers?.find((rule) => rule.source === "/:path*");
  return (all?.headers ?? []).map(({ key, value }) => [key, value]);
}
const securityHeaders = everyResponseHeaders();

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
const methodNotAllowed = plainAnswer(405, "Method Not Allowed", { Allow: "GET, HEAD, POST" });

const server = createServer((request, response) => {
  if (refusedMethods.has(request.method ?? "")) {
    response.writeHead(methodNotAllowed.status, methodNotAllowed.headers).end(methodNotAllowed.text);
    return;
  }
  // Set on every request, over anything a client sent under that name.
  request.headers[header] = request.socket.remoteAddress ?? "";
  handle(request, response).catch((/** @type {unknown} */ error) => {
    console.error(error);
    const failed = plainAnswer(500, "Internal Server Error");
    if (!response.headersSent) response.writeHead(failed.status, failed.headers);
    response.end(failed.text);
  });
});
// Node hands CONNECT to this event, not to the request handler: answered 405 too, then closed.
server.on("connect", (_request, socket) => {
  const head = Object.entries(methodNotAllowed.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\n${head.join("")}Content-Length: ${methodNotAllowed.text.length}\r\nConnection: close\r\n\r\n${methodNotAllowed.text}`,
  );
});
await app.prepare();

// The longest the app's exit work may take: past it, the process exits anyway.
const EXIT_WORK_MS = 60_000;

/** Runs what the app registered for its exit (server/shutdown.ts), one after the other. */
async function exitWork() {
  /** @type {Map<string, () => Promise<unknown>> | undefined} */
  const tasks = /** @type {any} */ (globalThis)[Symbol.for("sous.process-wide")]?.get("shutdown");
  for (const [name, task] of tasks ?? []) {
    try {
      await task();
    } catch (error) {
      console.error(`exit work ${name} failed:`, error);
    }
  }
}

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  server.close(async (error) => {
    if (error) console.error(error);
    const unfinished = await Promise.race([exitWork().then(() => false), sleep(EXIT_WORK_MS, true)]);
    if (unfinished) console.error(`exit work not finished after ${EXIT_WORK_MS} ms`);
    await app.close().catch((/** @type {unknown} */ closing) => console.error(closing));
    process.exit(error || unfinished ? 1 : 0);
  });
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

server.on("error", (error) => {
  console.error(error.message);
  process.exit(1);
});
server.listen(port, hostname, () => {
  const address = server.address();
  const shown = typeof address === "object" && address ? address.port : port;
  console.log(`Ready in ${Math.round(performance.now() - started)}ms on http://${hostname ?? "localhost"}:${shown}`);
});
