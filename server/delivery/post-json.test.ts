import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/tests/support/processes";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";
import { postJson } from "./post-json";

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

/** Posts a body whose name tells the receiver how to answer. */
const post = (directive: string, timeoutMs = 2_000) =>
  postJson({ url: `${receiver.url}/hook`, body: JSON.stringify({ name: directive }), headers: {}, timeoutMs });

describe("postJson", () => {
  it("counts every 2xx as delivered, a 204 without a body too", async () => {
    expect(await post("[status=200]")).toStrictEqual({ ok: true, status: 200 });
    expect(await post("[status=204]")).toStrictEqual({ ok: true, status: 204 });
    expect(await post("[status=299]")).toStrictEqual({ ok: true, status: 299 });
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
    expect(await post("[hang]", 100)).toStrictEqual({ ok: false, reason: "timeout" });
    expect(await post("[reset]")).toStrictEqual({ ok: false, reason: "network" });
    const nobody = `http://127.0.0.1:${await freePort()}/hook`;
    expect(await postJson({ url: nobody, body: "{}", headers: {}, timeoutMs: 2_000 })).toStrictEqual({
      ok: false,
      reason: "network",
    });
  });
});

describe("postJson, reading the answer", () => {
  // Answers what the path says: /big a 10,000-byte body, /refused 503 with JSON, /empty 200 with none.
  const server = createServer((request, response) => {
    request.resume();
    if (request.url === "/big") return response.writeHead(200).end("a".repeat(10_000));
    if (request.url === "/refused") return response.writeHead(503).end('{"texted":false}');
    response.writeHead(200).end();
  });
  let base = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

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
});
