import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { startNextServer } from "../support/next-server";
import type { Started } from "../support/processes";
import { newWebhookSecret } from "../support/webhook-secrets";
import { expect, test } from "./fixtures";

// What reaches the server beyond the pages: methods no route answers, bodies
// of any size, paths a visitor typed; on a server of its own, whose output
// (its log) the tests read.
test.describe.configure({ mode: "serial" });

let server: Started;
let dataDir: string;
test.beforeAll(async () => {
  // A database of its own: /api/health answers for this server alone, whatever the other specs left.
  dataDir = await mkdtemp(path.join(tmpdir(), "sous-hygiene-"));
  server = await startNextServer({ CONSENT_WEBHOOK_SECRET: newWebhookSecret(), DATA_DIR: dataDir });
});
test.afterAll(async () => {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** One request written by hand, as fetch refuses to send TRACE and CONNECT: its status line and headers. */
function rawRequest(lines: string[]) {
  const { port } = new URL(server.url);
  return new Promise<{ status: number; headers: Record<string, string> }>((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1", () => socket.write(`${lines.join("\r\n")}\r\n\r\n`));
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => {
      const [head = ""] = text.split("\r\n\r\n");
      const [statusLine = "", ...headerLines] = head.split("\r\n");
      const headers = Object.fromEntries(
        headerLines.map((line) => [
          line.slice(0, line.indexOf(":")).toLowerCase(),
          line.slice(line.indexOf(":") + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(" ")[1]), headers });
    });
  });
}

const host = () => `Host: ${new URL(server.url).host}`;

test("TRACE and CONNECT get 405 with the security headers, before Next: no 500, no stack trace in the log", async () => {
  const before = server.output().length;
  const get = await rawRequest(["GET / HTTP/1.1", host(), "Connection: close"]);
  expect(get.status).toBe(200);
  for (const lines of [
    ["TRACE / HTTP/1.1", host(), "Connection: close"],
    ["TRACE /signup HTTP/1.1", host(), "Connection: close"],
    [`CONNECT ${new URL(server.url).host} HTTP/1.1`, host()],
  ]) {
    const answer = await rawRequest(lines);
    expect(answer.status, lines[0]).toBe(405);
    expect(answer.headers.allow).toBe("GET, HEAD, POST");
    expect(answer.headers["content-type"]).toBe("text/plain; charset=utf-8");
    // The same policy the page carries.
    for (const name of [
      "content-security-policy",
      "strict-transport-security",
      "x-content-type-options",
      "x-frame-options",
    ])
      expect(answer.headers[name], `${lines[0]} ${name}`).toBe(get.headers[name]);
  }
  const logged = server.output().slice(before);
  expect(logged).not.toMatch(/\n\s+at /);
  expect(logged).not.toContain("TRACE");
});

test("every text response names its charset: pages, robots.txt, sitemap.xml, icon.svg, a 404, the API's answers", async () => {
  const textual = /^(text\/|application\/(json|xml)|image\/svg\+xml)/;
  for (const [path, status] of [
    ["/", 200],
    ["/signup", 200],
    ["/terms", 200],
    ["/robots.txt", 200],
    ["/sitemap.xml", 200],
    ["/icon.svg", 200],
    ["/no-such-page", 404],
    ["/api/health", 200],
    ["/api/cron/redeliver", 404],
  ] as const) {
    const response = await fetch(`${server.url}${path}`);
    expect(response.status, path).toBe(status);
    const type = response.headers.get("content-type") ?? "";
    expect(type, path).toMatch(textual);
    expect(type, path).toMatch(/;\s*charset=utf-8$/i);
  }
});

test("a path a visitor typed is logged with any email address or phone number in it masked", async () => {
  const before = server.output().length;
  for (const path of ["/wp-login.php", "/unsubscribe/chef@example.com", "/stop/%2B15552014480"])
    expect((await fetch(`${server.url}${path}`)).status, path).toBe(404);
  await expect
    .poll(
      () =>
        server
          .output()
          .slice(before)
          .match(/"event":"not_found"[^\n]*/g) ?? [],
    )
    .toHaveLength(3);
  const lines = (
    server
      .output()
      .slice(before)
      .match(/\{[^\n]*"event":"not_found"[^\n]*\}/g) ?? []
  ).map((line) => JSON.parse(line) as { path: string });
  expect(lines.map((line) => line.path)).toStrictEqual(["/wp-login.php", "/unsubscribe/[email]", "/stop/[phone]"]);
  expect(server.output()).not.toContain("chef@example.com");
  expect(server.output()).not.toContain("5552014480");
});

/** The server process's resident memory, in MiB. */
const residentMiB = () => {
  const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
};

/**
 * Streams up to `totalBytes` of chunked body to the revoke route, 1 KiB per
 * millisecond at most, until the answer comes: how much was written by then,
 * and the status.
 */
function streamToRevoke(totalBytes: number) {
  return new Promise<{ status: number; written: number }>((resolve, reject) => {
    let written = 0;
    let answered = false;
    const request = httpRequest(`${server.url}/api/consent/revoke`, {
      method: "POST",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
    });
    request.on("response", (response) => {
      answered = true;
      response.resume();
      resolve({ status: response.statusCode ?? 0, written });
      request.destroy();
    });
    request.on("error", (error) => (answered ? undefined : reject(error)));
    const chunk = Buffer.alloc(1_024, "a");
    const pump = () => {
      if (answered) return;
      if (written >= totalBytes) return void request.end();
      written += chunk.length;
      request.write(chunk);
      setTimeout(pump, 1);
    };
    pump();
  });
}

test("a chunked 10 MB body to the revoke route is refused after a few KiB, and the server's memory stays flat", async () => {
  test.setTimeout(120_000);
  // Its working twin: a body within the limit is read whole (and refused for its signature, not its size).
  const small = await streamToRevoke(2_048);
  expect(small).toStrictEqual({ status: 401, written: 2_048 });

  const before = residentMiB();
  const answers = await Promise.all([streamToRevoke(10 << 20), streamToRevoke(10 << 20), streamToRevoke(10 << 20)]);
  for (const answer of answers) {
    expect(answer.status).toBe(413);
    // The limit is 4 KiB; what was in flight when the answer came is a few chunks more.
    expect(answer.written).toBeLessThanOrEqual(64 * 1_024);
  }
  expect(residentMiB() - before).toBeLessThan(20);
});
