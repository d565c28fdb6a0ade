import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort } from "@/tests/support/processes";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";
import { backoffMs, isTransient, postJson } from "./webhook";

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

/** Posts a body whose name tells the receiver how to answer. */
const post = (directive: string, { timeoutMs = 2_000, readAnswer = false } = {}) =>
  postJson({
    url: `${receiver.url}/hook`,
    body: JSON.stringify({ name: directive }),
    headers: {},
    timeoutMs,
    readAnswer,
  });

describe("postJson", () => {
  it("counts every 2xx as delivered, a 204 without a body too", async () => {
    expect(await post("[status=200]")).toStrictEqual({ ok: true, status: 200 });
    expect(await post("[status=204]")).toStrictEqual({ ok: true, status: 204 });
    expect(await post("[status=299]")).toStrictEqual({ ok: true, status: 299 });
    // Asked for its answer, a 204 has none to read: an empty one, not a failure.
    expect(await post("[status=204]", { readAnswer: true })).toStrictEqual({ ok: true, status: 204, body: "" });
  });

  it("does not follow a 3xx, and tells it from a refusal; either way it reads the answer (a workflow says there why)", async () => {
    expect(await post("[status=300]")).toStrictEqual({ ok: false, reason: "redirect", status: 300, body: "nope" });
    expect(await post("[redirect]")).toMatchObject({
      ok: false,
      reason: "redirect",
      status: 302,
      body: expect.any(String),
    });
    expect(await post("[status=399]")).toStrictEqual({ ok: false, reason: "redirect", status: 399, body: "nope" });
    expect(await post("[status=400]")).toStrictEqual({ ok: false, reason: "status", status: 400, body: "nope" });
    expect(await post("[status=503]")).toStrictEqual({ ok: false, reason: "status", status: 503, body: "nope" });
  });

  it("sends JSON with the given headers", async () => {
    await postJson({
      url: `${receiver.url}/hook`,
      body: JSON.stringify({ name: "headers" }),
      headers: { "x-api-key": "k" },
      timeoutMs: 2_000,
    });
    const request = receiver.withName("headers").at(-1);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["x-api-key"]).toBe("k");
  });

  it("tells a receiver that never answers from one that is not there", async () => {
    expect(await post("[hang]", { timeoutMs: 100 })).toStrictEqual({ ok: false, reason: "timeout" });
    expect(await post("[reset]")).toStrictEqual({ ok: false, reason: "network" });
    const nobody = `http://127.0.0.1:${await freePort()}/hook`;
    expect(await postJson({ url: nobody, body: "{}", headers: {}, timeoutMs: 2_000 })).toStrictEqual({
      ok: false,
      reason: "network",
    });
  });
});

describe("postJson, reading the answer", () => {
  // Answers what the path says: /big a 10,000-byte body, /refused 503 with JSON, /empty 200 with none; /starting
  // what n8n answers any request while it starts (Express's res.send of a string: 200, text/html), /page a page
  // with the same words in it, /words the same words as plain text, /bare with no content type; /stream 200 and a
  // kilobyte every 20 ms, never ending (the test's sockets close with the server).
  const starting = "n8n is starting up. Please wait";
  const server = createServer((request, response) => {
    request.resume();
    const html = { "content-type": "text/html; charset=utf-8" };
    if (request.url === "/big") return response.writeHead(200).end("a".repeat(10_000));
    if (request.url === "/refused") return response.writeHead(503).end('{"texted":false}');
    if (request.url === "/starting")
      return response.writeHead(200, { ...html, "content-length": Buffer.byteLength(starting) }).end(starting);
    if (request.url === "/page") return response.writeHead(200, html).end(`<p>${starting}</p>`);
    if (request.url === "/words") return response.writeHead(200, { "content-type": "text/plain" }).end(starting);
    if (request.url === "/bare") return response.writeHead(200).end(starting);
    if (request.url === "/stream") {
      response.writeHead(200);
      const timer = setInterval(() => response.write("s".repeat(1_024)), 20);
      return response.on("close", () => clearInterval(timer));
    }
    response.writeHead(200).end();
  });
  let base = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  it("gives the first 4 KB of the body when asked, and none when not", async () => {
    const big = await postJson({ url: `${base}/big`, body: "{}", headers: {}, timeoutMs: 2_000, readAnswer: true });
    expect(big).toStrictEqual({ ok: true, status: 200, body: "a".repeat(4_096) });
    expect(await postJson({ url: `${base}/big`, body: "{}", headers: {}, timeoutMs: 2_000 })).toStrictEqual({
      ok: true,
      status: 200,
    });
    expect(
      await postJson({ url: `${base}/refused`, body: "{}", headers: {}, timeoutMs: 2_000, readAnswer: true }),
    ).toStrictEqual({
      ok: false,
      reason: "status",
      status: 503,
      body: '{"texted":false}',
    });
    expect(
      await postJson({ url: `${base}/empty`, body: "{}", headers: {}, timeoutMs: 2_000, readAnswer: true }),
    ).toStrictEqual({
      ok: true,
      status: 200,
      body: "",
    });
  });

  it("reads a receiver that streams on and on up to 4 KB, and stops there: delivered, not timed out", async () => {
    // The timeout is long enough for 4 KB at a kilobyte each 20 ms and short of what the test may take.
    expect(
      await postJson({ url: `${base}/stream`, body: "{}", headers: {}, timeoutMs: 3_000, readAnswer: true }),
    ).toStrictEqual({ ok: true, status: 200, body: "s".repeat(4_096) });
  });

  it("takes n8n's answer while it starts for no delivery but one to try again, read or not; any other 2xx is one", async () => {
    const at = (path: string, readAnswer = false) =>
      postJson({ url: `${base}${path}`, body: "{}", headers: {}, timeoutMs: 2_000, readAnswer });
    const unready = { ok: false, reason: "unready", status: 200, body: "n8n is starting up. Please wait" };
    expect(await at("/starting")).toStrictEqual(unready);
    expect(await at("/starting", true)).toStrictEqual(unready);
    // A page that says so is the receiver's own answer, and so are the same words as plain text.
    expect(await at("/page")).toStrictEqual({ ok: true, status: 200 });
    expect(await at("/words")).toStrictEqual({ ok: true, status: 200 });
    expect(await at("/bare")).toStrictEqual({ ok: true, status: 200 });
    expect(await at("/page", true)).toStrictEqual({ ok: true, status: 200, body: `<p>${starting}</p>` });
  });
});

describe("isTransient", () => {
  it("retries what the receiver may answer differently next time", () => {
    for (const status of [408, 429, 500, 502, 503, 504]) {
      expect(isTransient({ ok: false, reason: "status", status }), String(status)).toBe(true);
    }
    expect(isTransient({ ok: false, reason: "timeout" })).toBe(true);
    expect(isTransient({ ok: false, reason: "network" })).toBe(true);
    expect(isTransient({ ok: false, reason: "unready", status: 200 })).toBe(true);
  });

  it("does not retry a success, a refusal that will not change, or a redirect", () => {
    expect(isTransient({ ok: true, status: 200 })).toBe(false);
    expect(isTransient({ ok: true, status: 500 })).toBe(false);
    for (const status of [400, 401, 403, 404, 410, 422, 499]) {
      expect(isTransient({ ok: false, reason: "status", status }), String(status)).toBe(false);
    }
    expect(isTransient({ ok: false, reason: "redirect", status: 503 })).toBe(false);
  });
});

describe("backoffMs", () => {
  it("doubles a ceiling per retry and waits between half of it and all of it", () => {
    const random = vi.spyOn(Math, "random").mockReturnValue(0);
    expect([1, 2, 3].map((retry) => backoffMs(retry, 300))).toStrictEqual([150, 300, 600]);
    random.mockReturnValue(1);
    expect([1, 2, 3].map((retry) => backoffMs(retry, 300))).toStrictEqual([300, 600, 1200]);
    random.mockReturnValue(0.5);
    expect(backoffMs(2, 300)).toBe(450);
  });
});
