/**
 * The baseline for Next's throughput: Node's http module serving one buffer.
 * Whatever Next spends beyond this is framework (routing, middleware, headers, cache).
 *
 *   node bare.mjs <port> <file> <content-type>
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const [port, file, contentType] = process.argv.slice(2);
const body = readFileSync(file);

const server = createServer((req, res) => {
  res.writeHead(200, { "content-type": contentType, "content-length": body.length });
  res.end(body);
});

server.keepAliveTimeout = 60_000;
server.listen(Number(port), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
