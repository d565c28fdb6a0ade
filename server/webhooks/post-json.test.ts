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
  postJson(`${receiver.url}/hook`, JSON.stringify({ name: directive }), {}, timeoutMs);

describe("postJson", () => {
  it("counts every 2xx as delivered, a 204 without a body too", async () => {
    expect(await post("[status=200]")).toStrictEqual({ ok: true, status: 200 });
    expect(await post("[status=204]")).toStrictEqual({ ok: true, status: 204 });
    expect(await post("[status=299]")).toStrictEqual({ ok: true, status: 299 });
  });

  it("does not follow a 3xx, and tells it from a refusal", async () => {
    expect(await post("[status=300]")).toStrictEqual({ ok: false, reason: "redirect", status: 300 });
    expect(await post("[redirect]")).toStrictEqual({ ok: false, reason: "redirect", status: 302 });
    expect(await post("[status=399]")).toStrictEqual({ ok: false, reason: "redirect", status: 399 });
    expect(await post("[status=400]")).toStrictEqual({ ok: false, reason: "status", status: 400 });
    expect(await post("[status=503]")).toStrictEqual({ ok: false, reason: "status", status: 503 });
  });

  it("sends JSON with the given headers", async () => {
    await postJson(`${receiver.url}/hook`, JSON.stringify({ name: "headers" }), { "x-api-key": "k" }, 2_000);
    const request = receiver.withName("headers").at(-1);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["x-api-key"]).toBe("k");
  });

  it("tells a receiver that never answers from one that is not there", async () => {
    expect(await post("[hang]", 100)).toStrictEqual({ ok: false, reason: "timeout" });
    expect(await post("[reset]")).toStrictEqual({ ok: false, reason: "network" });
    const nobody = `http://127.0.0.1:${await freePort()}/hook`;
    expect(await postJson(nobody, "{}", {}, 2_000)).toStrictEqual({ ok: false, reason: "network" });
  });
});
