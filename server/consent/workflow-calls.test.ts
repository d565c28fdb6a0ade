import { Webhook } from "standardwebhooks";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { POST } from "@/app/api/consent/revoke/route";
import { database } from "@/server/db/connect";
import { leadById } from "@/server/outbox/outbox-store";
import { dueNow, redeliveryPass } from "@/server/forms/leads";
import { readEnv } from "@/server/env";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { consentRecords, consentStandings, consentStates, type ConsentEvidence } from "@/server/consent/consent-store";
import { disclosureOf } from "@/server/consent/disclosure";
import { renewRequest } from "./workflow-calls";
import { submitted } from "@/tests/support/lead-sending";

const receiver = setupWebhookReceiver();
let secret: string;
let counter = 0;

beforeEach(() => {
  secret = newWebhookSecret();
  vi.stubEnv("CONSENT_WEBHOOK_SECRET", secret);
  for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
});

/** A number of its own for each test, in E.164. */
function number() {
  counter += 1;
  return `+1555300${String(counter).padStart(4, "0")}`;
}

/** The workflow's call to a route, signed as Standard Webhooks asks: id, timestamp, signature over both and the body. */
function signedRequest(
  route: string,
  body: unknown,
  { key = secret, id = `msg_${crypto.randomUUID()}`, at = new Date(), text = JSON.stringify(body) } = {},
) {
  return new Request(`http://localhost${route}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(key).sign(id, at, text),
    },
    body: text,
  });
}
type SignOptions = { key?: string; id?: string; at?: Date; text?: string };
const call = (body: unknown, options: SignOptions = {}) => POST(signedRequest("/api/consent/revoke", body, options));

const logged = (event: string) =>
  (["info", "warn", "error"] as const)
    .flatMap((method) => vi.mocked(console[method]).mock.calls)
    .map((call) => JSON.parse(String(call[0])))
    .filter((line) => line.event === event);

const revocationsOf = async (phone: string) => (await consentRecords(await database(readEnv()), { phone })).revocations;

/** What a sign-up keeps of its consent: the record that names its lead. */
const evidence = (phone: string): ConsentEvidence => ({
  phone,
  ip: null,
  userAgent: null,
  pageUrl: null,
  javascript: false,
  disclosure: disclosureOf("I agree to texts."),
  shownVersion: null,
});

describe("POST /api/consent/revoke", () => {
  it("does not exist while CONSENT_WEBHOOK_SECRET is unset", async () => {
    vi.stubEnv("CONSENT_WEBHOOK_SECRET", "");
    const phone = number();
    const response = await call({ type: "consent.revoke", phone, channel: "sms" });
    expect(response.status).toBe(404);
    expect(await response.text()).toBe("Not Found");
    expect(await revocationsOf(phone)).toStrictEqual([]);
  });

  it("records a signed STOP: when, by which channel, by the workflow, under its webhook-id", async () => {
    const phone = number();
    const response = await call({ type: "consent.revoke", phone, channel: "sms" }, { id: "msg_stop_1" });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toStrictEqual({ recorded: true, leadsStopped: 0 });
    // The operator's log says what happened, never to which number.
    expect(logged("consent_revoked")).toStrictEqual([
      expect.objectContaining({ level: "info", via: "workflow", channel: "sms", recorded: true, leadsStopped: 0 }),
    ]);
    expect(JSON.stringify(logged("consent_revoked"))).not.toContain(phone.slice(2));
    expect(await revocationsOf(phone)).toStrictEqual([
      expect.objectContaining({
        phone,
        channel: "sms",
        source: "workflow",
        message_id: "msg_stop_1",
        revoked_at: expect.any(Number),
      }),
    ]);
  });

  it("takes the number in any spelling, and sms when no channel is named", async () => {
    const phone = number();
    const spelled = `(${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`;
    expect((await call({ type: "consent.revoke", phone: spelled })).status).toBe(200);
    expect(await revocationsOf(phone)).toStrictEqual([expect.objectContaining({ channel: "sms" })]);
  });

  it("accepts a call signed with any secret in force, for rotation", async () => {
    const next = newWebhookSecret();
    vi.stubEnv("CONSENT_WEBHOOK_SECRET", `${secret} ${next}`);
    const phone = number();
    expect((await call({ type: "consent.revoke", phone, channel: "email" }, { key: next })).status).toBe(200);
    expect(await revocationsOf(phone)).toHaveLength(1);
  });

  it.each([
    ["signed with another secret", () => ({ key: newWebhookSecret() }), "signature"],
    // A body that is not JSON is refused as a bad body only once its signature holds.
    [
      "signed with another secret, over a body that is not JSON",
      () => ({ key: newWebhookSecret(), text: "STOP" }),
      "signature",
    ],
    ["with a timestamp ten minutes old", () => ({ at: new Date(Date.now() - 10 * 60_000) }), "stale"],
    ["with a timestamp ten minutes ahead", () => ({ at: new Date(Date.now() + 10 * 60_000) }), "stale"],
  ])("answers 401 to a call %s and records nothing, logged as %s", async (_label, options, reason) => {
    const phone = number();
    const response = await call({ type: "consent.revoke", phone, channel: "sms" }, options());
    expect(response.status).toBe(401);
    expect(await response.text()).toBe("Unauthorized");
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    // A clock off by more than five minutes is not a wrong secret: the operator's log says which.
    expect(logged("consent_revoke_refused")).toStrictEqual([expect.objectContaining({ level: "warn", reason })]);
    expect(await revocationsOf(phone)).toStrictEqual([]);
  });

  it("answers 401 to an unsigned call, and to a signed body changed on the way", async () => {
    const phone = number();
    const unsigned = await POST(
      new Request("http://localhost/api/consent/revoke", { method: "POST", body: JSON.stringify({ phone }) }),
    );
    expect(unsigned.status).toBe(401);

    const id = "msg_tampered";
    const at = new Date();
    const signedFor = JSON.stringify({ phone: number(), channel: "sms" });
    const tampered = await POST(
      new Request("http://localhost/api/consent/revoke", {
        method: "POST",
        headers: {
          "webhook-id": id,
          "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
          "webhook-signature": new Webhook(secret).sign(id, at, signedFor),
        },
        body: JSON.stringify({ phone, channel: "sms" }),
      }),
    );
    expect(tampered.status).toBe(401);
    expect(await revocationsOf(phone)).toStrictEqual([]);
    // Neither is a clock problem: both are logged as the signature.
    expect(logged("consent_revoke_refused").map((line) => line.reason)).toStrictEqual(["signature", "signature"]);
  });

  it("records a replayed call once", async () => {
    const phone = number();
    const first = await call({ type: "consent.revoke", phone, channel: "sms" }, { id: "msg_replay" });
    const replay = await call({ type: "consent.revoke", phone, channel: "sms" }, { id: "msg_replay" });
    expect([first.status, replay.status]).toStrictEqual([200, 200]);
    expect(await replay.json()).toStrictEqual({ recorded: false, leadsStopped: 0 });
    expect(await revocationsOf(phone)).toHaveLength(1);
    // A webhook-id names one call, whatever its body says: the same id with another number records nothing either.
    const other = number();
    const reused = await call({ type: "consent.revoke", phone: other, channel: "sms" }, { id: "msg_replay" });
    expect(await reused.json()).toStrictEqual({ recorded: false, leadsStopped: 0 });
    expect(await revocationsOf(other)).toStrictEqual([]);
    // The same number under a new id is a new call.
    expect(
      await (await call({ type: "consent.revoke", phone: other, channel: "sms" }, { id: "msg_replay_2" })).json(),
    ).toMatchObject({
      recorded: true,
    });
  });

  it.each([
    // Signed as it came: `STOP`, not the JSON string "STOP".
    ["a body that is not JSON", { text: "STOP" }, "body", "The body must be JSON"],
    ["a body that is JSON but no object", "STOP", "body", "The body must be JSON"],
    ["a channel it does not know", { channel: "fax" }, "body", "The body must be JSON"],
    ["a phone that is no number", { phone: "12" }, "phone", "The phone is not a possible number"],
    ["a phone over 64 characters", { phone: `+1 555 123 4567${" ".repeat(50)}` }, "body", "The body must be JSON"],
    ["a phone that is not text", { phone: 15551234567 }, "body", "The body must be JSON"],
    ["a key it does not know", { consent: "yes" }, "body", "The body must be JSON"],
    ["another call's type", { type: "consent.renew" }, "body", '{"type": "consent.revoke"'],
  ])("answers 400 to %s", async (_label, body, reason, text) => {
    const phone = number();
    const response =
      typeof body === "object" && "text" in body
        ? await call(undefined, { text: body.text })
        : await call(typeof body === "string" ? body : { type: "consent.revoke", phone, channel: "sms", ...body });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(text);
    expect(logged("consent_revoke_refused")).toStrictEqual([expect.objectContaining({ reason })]);
    expect(await revocationsOf(phone)).toStrictEqual([]);
  });

  it("answers 413 to a body over 4 KiB, whatever its length header says", async () => {
    const phone = number();
    const padded = { type: "consent.revoke", phone, channel: "sms", padding: "x".repeat(4_096) };
    expect((await call(padded)).status).toBe(413);
    const text = JSON.stringify({ type: "consent.revoke", phone, channel: "sms" });
    const claimed = await POST(
      new Request("http://localhost/api/consent/revoke", {
        method: "POST",
        headers: { "content-length": "5000" },
        body: text,
      }),
    );
    expect(claimed.status).toBe(413);
    // Exactly at the limit is read (JSON may end in white space).
    expect((await call(undefined, { text: text.padEnd(4_096) })).status).toBe(200);
  });

  it("reads a streamed body with no length no further than 4 KiB, answers 413 and cancels the stream", async () => {
    const phone = number();
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1_024;
        controller.enqueue(new Uint8Array(1_024).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const response = await POST(
      new Request("http://localhost/api/consent/revoke", {
        method: "POST",
        body: endless,
        duplex: "half",
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect(cancelled).toBe(true);
    // The limit and the chunk it was reading when it passed it, and what the stream queued ahead: never the rest.
    expect(pulled).toBeLessThanOrEqual(4_096 + 2 * 1_024);
    // Its working twin: the same stream, ended within the limit, is read whole (and refused for its signature).
    const short = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ type: "consent.revoke", phone })));
        controller.close();
      },
    });
    const read = await POST(
      new Request("http://localhost/api/consent/revoke", {
        method: "POST",
        body: short,
        duplex: "half",
      } as RequestInit),
    );
    expect(read.status).toBe(401);
  });

  it("answers 503 when the database does not answer, so the workflow retries, and records it once it does", async () => {
    const phone = number();
    const id = "msg_after_outage";
    vi.stubEnv("DATA_DIR", `${import.meta.filename}/no-folder-inside-a-file`);
    const down = await call({ type: "consent.revoke", phone, channel: "sms" }, { id });
    expect(down.status).toBe(503);
    expect(logged("consent_revoke_failed")).toStrictEqual([
      expect.objectContaining({ level: "error", message: expect.stringContaining("DATA_DIR") }),
    ]);
    vi.unstubAllEnvs();
    vi.stubEnv("CONSENT_WEBHOOK_SECRET", secret);
    expect((await call({ type: "consent.revoke", phone, channel: "sms" }, { id })).status).toBe(200);
    expect(await revocationsOf(phone)).toHaveLength(1);
  });

  it("keeps a revoked number's pending lead from ever being sent, while the pass sends another number's", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
    vi.stubEnv("WEBHOOK_MAX_RETRIES", "0");
    const [phone, other] = [number(), number()];
    const body = { phone, name: `Revoked ${Date.now()} [fail=1]` };
    const kept = { phone: other, name: `Kept ${Date.now()} [fail=1]` };
    const first = await submitted("waitlist", body, { consent: evidence(phone) });
    const second = await submitted("waitlist", kept, { consent: evidence(other) });
    expect([first.ok, second.ok]).toStrictEqual([false, false]);
    expect(receiver.withName(body.name)).toHaveLength(1);

    const response = await call({ type: "consent.revoke", phone, channel: "sms" });
    expect(await response.json()).toMatchObject({ recorded: true, leadsStopped: 1 });
    const summary = await redeliveryPass(readEnv(), {
      due: () => dueNow(Number.MAX_SAFE_INTEGER),
    });
    // The same pass delivered the other number's lead: it ran, and skipped only the revoked one.
    expect(summary.delivered).toBe(1);
    expect(receiver.withName(kept.name).map((request) => request.answered)).toStrictEqual([503, 200]);
    // The receiver would have acknowledged this time: only the visitor's failed attempt ever reached it.
    expect(receiver.withName(body.name)).toHaveLength(1);
    expect(await leadById(await database(readEnv()), first.webhookId)).toMatchObject({
      state: "revoked",
      payload: null,
    });
  });
});

describe("POST /api/consent/renew", () => {
  /** The workflow's call after a START, signed like the revoke call; `released` counts the passes it asks for. */
  let released = 0;
  const renew = (body: unknown, options: SignOptions = {}) =>
    renewRequest(signedRequest("/api/consent/renew", body, options), () => (released += 1));

  beforeEach(() => {
    released = 0;
    vi.stubEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
  });

  it("lets go the sign-up a revoked number made on the web, once, and only when signed", async () => {
    const phone = number();
    const store = await database(readEnv());
    const first = { phone, name: `Chef ${Date.now()}` };
    expect(await submitted("waitlist", first, { consent: evidence(phone) })).toMatchObject({
      ok: true,
      via: "webhook",
    });
    expect((await call({ type: "consent.revoke", phone, channel: "sms" })).status).toBe(200);
    const stranger = { phone, name: `Stranger ${Date.now()}` };
    const waiting = await submitted("waitlist", stranger, { consent: evidence(phone) });
    expect(waiting).toMatchObject({ ok: true, via: "awaiting_start" });
    expect(await leadById(store, waiting.webhookId)).toMatchObject({ state: "awaiting_start" });

    // Not signed by a secret in force: nothing changes.
    expect((await renew({ type: "consent.renew", phone }, { key: newWebhookSecret() })).status).toBe(401);
    expect(logged("consent_renew_refused")).toStrictEqual([expect.objectContaining({ reason: "signature" })]);
    expect(await leadById(store, waiting.webhookId)).toMatchObject({ state: "awaiting_start" });
    expect((await consentStates(store, [phone])).get(phone)).toBe("revoked");

    const response = await renew({ type: "consent.renew", phone }, { id: "SM-start" });
    expect(response.status).toBe(200);
    expect(await response.json()).toStrictEqual({ recorded: true, leadsReleased: 1 });
    expect(released).toBe(1);
    expect(await leadById(store, waiting.webhookId)).toMatchObject({ state: "pending" });
    expect((await consentStates(store, [phone])).get(phone)).toBe("in force");
    expect(logged("consent_renewed")).toStrictEqual([
      expect.objectContaining({ level: "info", via: "workflow", recorded: true, leadsReleased: 1 }),
    ]);
    expect(JSON.stringify(logged("consent_renewed"))).not.toContain(phone.slice(2));

    // The workflow's retry of the same START records nothing twice and starts no second pass.
    expect(await (await renew({ type: "consent.renew", phone }, { id: "SM-start" })).json()).toStrictEqual({
      recorded: false,
      leadsReleased: 0,
    });
    expect(released).toBe(1);
    // Its id with another number's body is the same call: nothing is recorded for that number.
    const other = number();
    expect(await (await renew({ type: "consent.renew", phone: other }, { id: "SM-start" })).json()).toStrictEqual({
      recorded: false,
      leadsReleased: 0,
    });
    expect((await consentRecords(store, { phone: other })).renewals).toStrictEqual([]);
    await redeliveryPass(readEnv(), { due: () => dueNow(Number.MAX_SAFE_INTEGER) });
    await redeliveryPass(readEnv(), { due: () => dueNow(Number.MAX_SAFE_INTEGER) });
    expect(receiver.withName(stranger.name).map((request) => request.answered)).toStrictEqual([200]);
    expect((await consentRecords(store, { phone })).renewals).toStrictEqual([
      expect.objectContaining({ phone, channel: "sms", source: "workflow", message_id: "SM-start" }),
    ]);
  });

  it("orders a number's changes by when the workflow received each text: a START retried past a later STOP changes nothing; one texted after it puts consent back", async () => {
    const phone = number();
    const store = await database(readEnv());
    expect(
      await submitted("waitlist", { phone, name: `Chef ${Date.now()}` }, { consent: evidence(phone) }),
    ).toMatchObject({ ok: true });
    // Each text's time, in order after the sign-up; all in the past by the time the calls arrive.
    const t0 = Date.now();
    const at = (step: number) => new Date(t0 + step * 10).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 80));
    // Two STOPs (steps 1 and 3); then a web sign-up waits for a START.
    for (const step of [1, 3])
      expect((await call({ type: "consent.revoke", phone, channel: "sms", receivedAt: at(step) })).status).toBe(200);
    const waiting = await submitted("waitlist", { phone, name: `Again ${Date.now()}` }, { consent: evidence(phone) });
    expect(waiting).toMatchObject({ ok: true, via: "awaiting_start" });
    // A START texted between them (step 2), retried through an outage, arrives last.
    const late = await renew({ type: "consent.renew", phone, receivedAt: at(2) });
    expect(await late.json()).toStrictEqual({ recorded: true, leadsReleased: 0 });
    expect(released).toBe(0);
    expect((await consentStates(store, [phone])).get(phone)).toBe("revoked");
    expect(await leadById(store, waiting.webhookId)).toMatchObject({ state: "awaiting_start" });
    expect((await consentRecords(store, { phone })).renewals).toStrictEqual([
      expect.objectContaining({ renewed_at: Date.parse(at(2)) }),
    ]);

    // Its twin: a START texted after the last STOP puts consent back in force and lets the sign-up go.
    const after = await renew({ type: "consent.renew", phone, receivedAt: at(5) });
    expect(await after.json()).toStrictEqual({ recorded: true, leadsReleased: 1 });
    expect((await consentStates(store, [phone])).get(phone)).toBe("in force");
    expect(await leadById(store, waiting.webhookId)).toMatchObject({ state: "pending" });

    // A STOP texted before that START, arriving late, is history too: consent stays in force, the lead is not stopped.
    const stale = await call({ type: "consent.revoke", phone, channel: "sms", receivedAt: at(4) });
    expect(await stale.json()).toStrictEqual({ recorded: true, leadsStopped: 0 });
    expect((await consentStates(store, [phone])).get(phone)).toBe("in force");
    expect(await leadById(store, waiting.webhookId)).toMatchObject({ state: "pending" });
  });

  it("takes a call without receivedAt (an older workflow) as received now, and a receivedAt in the future as now; refuses one that is no time", async () => {
    const phone = number();
    const store = await database(readEnv());
    const before = Date.now();
    expect((await call({ type: "consent.revoke", phone, channel: "sms" })).status).toBe(200);
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect((await renew({ type: "consent.renew", phone, receivedAt: future })).status).toBe(200);
    const { revocations, renewals } = await consentRecords(store, { phone });
    for (const time of [Number(revocations[0]!.revoked_at), Number(renewals[0]!.renewed_at)]) {
      expect(time).toBeGreaterThanOrEqual(before);
      expect(time).toBeLessThanOrEqual(Date.now());
    }
    for (const receivedAt of ["yesterday", "2026-13-01T00:00:00Z", 1_700_000_000])
      expect((await renew({ type: "consent.renew", phone, receivedAt })).status, String(receivedAt)).toBe(400);
    expect((await consentRecords(store, { phone })).renewals).toHaveLength(1);
  });

  it("answers 503 when the database does not answer, so the workflow retries, and 413 past 4 KiB; records the START once it is back", async () => {
    const phone = number();
    vi.stubEnv("DATA_DIR", `${import.meta.filename}/no-folder-inside-a-file`);
    const down = await renew({ type: "consent.renew", phone }, { id: "SM-start-outage" });
    expect([down.status, await down.text()]).toStrictEqual([503, "Service Unavailable"]);
    expect(logged("consent_renew_failed")).toStrictEqual([
      expect.objectContaining({ level: "error", message: expect.stringContaining("DATA_DIR") }),
    ]);
    vi.unstubAllEnvs();
    vi.stubEnv("CONSENT_WEBHOOK_SECRET", secret);
    const large = await renew({ type: "consent.renew", phone, padding: "x".repeat(4_096) });
    expect([large.status, await large.text()]).toStrictEqual([413, "Payload Too Large"]);
    expect(logged("consent_renew_refused")).toStrictEqual([expect.objectContaining({ reason: "too_large" })]);
    expect(await (await renew({ type: "consent.renew", phone }, { id: "SM-start-outage" })).json()).toStrictEqual({
      recorded: true,
      leadsReleased: 0,
    });
  });

  it.each([
    ["unsigned", () => ({ unsigned: true }), "signature"],
    ["signed with another secret", () => ({ key: newWebhookSecret() }), "signature"],
    // A body that is not JSON is refused as a bad body only once its signature holds.
    [
      "signed with another secret, over a body that is not JSON",
      () => ({ key: newWebhookSecret(), text: "STOP" }),
      "signature",
    ],
    ["with a timestamp ten minutes old", () => ({ at: new Date(Date.now() - 10 * 60_000) }), "stale"],
  ])("answers 401 to a START %s, and puts nothing back in force", async (_label, options, reason) => {
    const phone = number();
    const store = await database(readEnv());
    await submitted("waitlist", { phone, name: `Chef ${Date.now()}` }, { consent: evidence(phone) });
    expect((await call({ type: "consent.revoke", phone, channel: "sms" })).status).toBe(200);
    const { unsigned, ...signing } = options() as SignOptions & { unsigned?: boolean };
    const body = { type: "consent.renew", phone };
    const response = unsigned
      ? await renewRequest(
          new Request("http://localhost/api/consent/renew", { method: "POST", body: JSON.stringify(body) }),
          () => (released += 1),
        )
      : await renew(body, signing);
    expect([response.status, await response.text()]).toStrictEqual([401, "Unauthorized"]);
    expect(logged("consent_renew_refused")).toStrictEqual([expect.objectContaining({ level: "warn", reason })]);
    expect((await consentRecords(store, { phone })).renewals).toStrictEqual([]);
    expect((await consentStates(store, [phone])).get(phone)).toBe("revoked");
    // Its working twin: the same START, signed now with the secret in force, puts it back.
    expect((await renew(body)).status).toBe(200);
    expect((await consentStates(store, [phone])).get(phone)).toBe("in force");
  });

  it("means only what it was signed for: a STOP replayed as a START (and the reverse) records nothing", async () => {
    const phone = number();
    const store = await database(readEnv());
    await submitted("waitlist", { phone, name: `Chef ${Date.now()}` }, { consent: evidence(phone) });
    // A captured STOP call, sent again whole (id, time, signature and body) to the renew route.
    const stop = signedRequest(
      "/api/consent/revoke",
      { type: "consent.revoke", phone, channel: "sms" },
      { id: "SM-stop-x" },
    );
    const replayed = new Request("http://localhost/api/consent/renew", {
      method: "POST",
      headers: stop.headers,
      body: await stop.clone().text(),
    });
    expect((await POST(stop)).status).toBe(200);
    expect((await consentStates(store, [phone])).get(phone)).toBe("revoked");
    const asStart = await renewRequest(replayed, () => (released += 1));
    expect(asStart.status).toBe(400);
    expect(await asStart.text()).toContain('{"type": "consent.renew"');
    expect((await consentStates(store, [phone])).get(phone)).toBe("revoked");
    expect((await consentRecords(store, { phone })).renewals).toStrictEqual([]);

    // A START's body replayed to the revoke route stops nothing.
    const start = signedRequest("/api/consent/renew", { type: "consent.renew", phone }, { id: "SM-start-x" });
    const asStop = new Request("http://localhost/api/consent/revoke", {
      method: "POST",
      headers: start.headers,
      body: await start.clone().text(),
    });
    expect((await renewRequest(start, () => (released += 1))).status).toBe(200);
    expect((await consentStates(store, [phone])).get(phone)).toBe("in force");
    expect((await POST(asStop)).status).toBe(400);
    expect((await consentStates(store, [phone])).get(phone)).toBe("in force");
    expect((await consentRecords(store, { phone })).revocations).toHaveLength(1);

    // One message id is one event across both routes, even with the right type signed anew.
    const again = await renew({ type: "consent.renew", phone }, { id: "SM-stop-x" });
    expect(await again.json()).toStrictEqual({ recorded: false, leadsReleased: 0 });
    const reverse = await call({ type: "consent.revoke", phone, channel: "sms" }, { id: "SM-start-x" });
    expect(await reverse.json()).toStrictEqual({ recorded: false, leadsStopped: 0 });
    expect((await consentStates(store, [phone])).get(phone)).toBe("in force");
  });

  it("tells a workflow older than the site that it signs no type, and records nothing", async () => {
    const phone = number();
    const response = await renew({ phone });
    expect(response.status).toBe(400);
    expect(await response.text()).toBe(
      'The body names no type: this workflow is older than the site. Import the site\'s workflows again. Expected {"type": "consent.renew", "phone": "+15551234567"}',
    );
    expect(logged("consent_renew_refused")).toStrictEqual([expect.objectContaining({ reason: "untyped" })]);
    expect((await call({ phone, channel: "sms" })).status).toBe(400);
    expect(logged("consent_revoke_refused")).toStrictEqual([expect.objectContaining({ reason: "untyped" })]);
    expect(await revocationsOf(phone)).toStrictEqual([]);
  });

  it("keeps a START from a number that never signed up as evidence, and puts nothing in force", async () => {
    const stranger = number();
    const store = await database(readEnv());
    expect(await (await renew({ type: "consent.renew", phone: stranger })).json()).toStrictEqual({
      recorded: true,
      leadsReleased: 0,
    });
    expect((await consentRecords(store, { phone: stranger })).renewals).toHaveLength(1);
    expect((await consentStates(store, [stranger])).get(stranger)).toBe("none");
    // A web sign-up after it does not make that START count either: the sign-up itself is the consent.
    const signedUp = number();
    expect((await renew({ type: "consent.renew", phone: signedUp })).status).toBe(200);
    await submitted("waitlist", { phone: signedUp, name: `Chef ${Date.now()}` }, { consent: evidence(signedUp) });
    const [record] = (await consentRecords(store, { phone: signedUp })).consents;
    expect((await consentStandings(store, [signedUp])).get(signedUp)).toMatchObject({
      state: "in force",
      recordId: record!.id,
    });
  });

  it("records a START with nothing waiting, and refuses what is not one", async () => {
    const phone = number();
    await submitted("waitlist", { phone, name: `Chef ${Date.now()}` }, { consent: evidence(phone) });
    expect(await (await renew({ type: "consent.renew", phone })).json()).toStrictEqual({
      recorded: true,
      leadsReleased: 0,
    });
    expect(released).toBe(0);
    const notANumber = await renew({ type: "consent.renew", phone: "12" });
    expect([notANumber.status, await notANumber.text()]).toStrictEqual([400, "The phone is not a possible number"]);
    const notJson = await renew("START");
    expect([notJson.status, await notJson.text()]).toStrictEqual([
      400,
      'The body must be JSON: {"type": "consent.renew", "phone": "+15551234567"}',
    ]);
    expect(logged("consent_renew_refused").map((line) => line.reason)).toStrictEqual(["phone", "body"]);
    vi.stubEnv("CONSENT_WEBHOOK_SECRET", "");
    expect((await renew({ type: "consent.renew", phone })).status).toBe(404);
  });
});
