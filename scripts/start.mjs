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
 * the requests under way finish, closes Next, and exits 143 or 130.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
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
const server = createServer((request, response) => {
  // Set on every request, over anything a client sent under that name.
  request.headers[header] = request.socket.remoteAddress ?? "";
  handle(request, response).catch((/** @type {unknown} */ error) => {
    console.error(error);
    if (!response.headersSent) response.statusCode = 500;
    response.end("Internal Server Error");
  });
});
await app.prepare();

let stopping = false;
/** @param {"SIGTERM" | "SIGINT"} signal */
function stop(signal) {
  if (stopping) return;
  stopping = true;
  server.close((error) => {
    if (error) console.error(error);
    app.close().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  });
}
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));

server.on("error", (error) => {
  console.error(error.message);
  process.exit(1);
});
server.listen(port, hostname, () => {
  const address = server.address();
  const shown = typeof address === "object" && address ? address.port : port;
  console.log(`Ready in ${Math.round(performance.now() - started)}ms on http://${hostname ?? "localhost"}:${shown}`);
});
