/**
 * The webhook receiver the app delivers to: answers 200 to any POST at once.
 * It runs as its own process so that the load generator in the bench's process
 * does not slow it down, and it times its own handling of each delivery so that
 * the bench can tell the app's share of a sign-up's latency from the receiver's.
 *
 *   node receiver.mjs <port> [answerAfterMs]
 *   GET /__stats  ->  { "deliveries": n, "handlingMs": [..., one per delivery, in order] }
 */
import { createServer } from "node:http";

const port = Number(process.argv[2]);
// A workflow that takes this long to answer.
const answerAfterMs = Number(process.argv[3] ?? 0);
const handlingMs = [];

const server = createServer((req, res) => {
  const started = process.hrtime.bigint();
  if (req.method === "GET" && req.url === "/__stats") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ deliveries: handlingMs.length, handlingMs }));
    return;
  }
  // The body is read to its end, as a real receiver would, before answering.
  req.resume();
  req.on("end", () =>
    setTimeout(() => {
      res.writeHead(req.method === "POST" ? 200 : 405, { "content-type": "text/plain" });
      res.end(req.method === "POST" ? "ok" : "");
    }, answerAfterMs),
  );
  res.on("finish", () => {
    if (req.method === "POST") handlingMs.push(Number(process.hrtime.bigint() - started) / 1e6);
  });
});

server.keepAliveTimeout = 60_000;
server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
