import { Webhook } from "standardwebhooks";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import type { ReceivedRequest } from "@/tests/support/webhook-receiver";
import { submitted } from "@/tests/support/lead-sending";
import { failureOf } from "@/server/outbox/webhook";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { newClaim, insertLead } from "./outbox-store";
import { leadKind } from "@/server/forms/leads";
import { sendClaimed } from "./send";

const receiver = setupWebhookReceiver();
let token = 0;

beforeEach(() => {
  vi.stubEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
  vi.stubEnv("WEBHOOK_RETRY_BASE_MS", "10");
  vi.spyOn(console, "warn").mockImplementation(() => {});
});

function payload(directive = "") {
  token += 1;
  return { phone: "(555) 123-4567", name: `Ada d${token} ${directive}`.trim() };
}

/** Delivers as the waitlist form would, with the environment as it is now. */
async function send(body: { phone: string; name: string }) {
  const delivery = await submitted("waitlist", body);
  return { delivery, requests: receiver.withName(body.name) };
}

function verify(secret: string, request: ReceivedRequest | undefined) {
  if (!request) throw new Error("nothing arrived");
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
}

describe("signing (Standard Webhooks)", () => {
  it("signs every delivery so the receiver can verify it with the secret", async () => {
    const secret = newWebhookSecret();
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", secret);
    const body = payload();
    const { delivery, requests } = await send(body);

    const [request] = requests;
    expect(request?.headers["webhook-id"]).toBe(delivery.webhookId);
    expect(Number(request?.headers["webhook-timestamp"])).toBeCloseTo(Date.now() / 1000, -1);
    expect(request?.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verify(secret, request)).toEqual(body);
    expect(() => verify(newWebhookSecret(), request)).toThrow();
  });

  it("signs with each of two secrets, so either side of a rotation verifies", async () => {
    const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", `${oldSecret} ${newSecret}`);
    const body = payload();
    const { requests } = await send(body);

    const [request] = requests;
    expect(String(request?.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(oldSecret, request)).toEqual(body);
    expect(verify(newSecret, request)).toEqual(body);
  });

  it("reads the secret at each request: a new value signs the next delivery, no rebuild", async () => {
    const [first, second] = [newWebhookSecret(), newWebhookSecret()];
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", first);
    const [one, two] = [payload(), payload()];
    const before = await send(one);
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", second);
    const after = await send(two);

    expect(verify(first, before.requests[0])).toEqual(one);
    expect(verify(second, after.requests[0])).toEqual(two);
    expect(() => verify(first, after.requests[0])).toThrow();
  });

  it("sends no signature headers without a secret", async () => {
    const { requests } = await send(payload());
    expect(requests[0]?.headers).not.toHaveProperty("webhook-signature");
    expect(requests[0]?.headers).not.toHaveProperty("webhook-id");
  });

  it("sends a fixed auth header as given, for receivers that check one", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_AUTH_HEADER", "X-N8N-Auth:  s3cret value ");
    const { requests } = await send(payload());
    expect(requests[0]?.headers["x-n8n-auth"]).toBe("s3cret value");
  });
});

describe("retries", () => {
  it("retries a transient failure with the same webhook-id until it succeeds", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", newWebhookSecret());
    const before = Math.floor(Date.now() / 1000);
    const { delivery, requests } = await send(payload("[fail=2]"));

    expect(delivery).toMatchObject({ ok: true, status: 200, attempts: 3 });
    expect(requests.map((request) => request.answered)).toEqual([503, 503, 200]);
    expect(new Set(requests.map((request) => request.headers["webhook-id"]))).toEqual(new Set([delivery.webhookId]));
    // The retries say the receiver may have acted on an earlier attempt since the lead was made; the first does not.
    const since = requests.map((request) => request.headers["sous-redelivery-since"]);
    expect(since[0]).toBeUndefined();
    expect(since[1]).toBe(since[2]);
    expect(Number(since[1])).toBeGreaterThanOrEqual(before);
    expect(Number(since[1])).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    // The pauses between them (10 then 20 ms here) are checked on the virtual clock below.
  });

  it("gives up after two retries", async () => {
    const { delivery, requests } = await send(payload("[fail=3]"));
    expect(delivery).toMatchObject({ ok: false, reason: "status", status: 503, attempts: 3 });
    expect(requests).toHaveLength(3);
  });

  it.each([408, 429, 500, 502, 504])("retries status %i", async (status) => {
    const { delivery } = await send(payload(`[status=${status}]`));
    expect(delivery.attempts).toBe(3);
  });

  it.each([400, 401, 403, 404, 410, 422])("does not retry status %i", async (status) => {
    const { delivery, requests } = await send(payload(`[status=${status}]`));
    expect(delivery).toMatchObject({ ok: false, reason: "status", status, attempts: 1 });
    expect(requests).toHaveLength(1);
  });

  it("does not retry a redirect", async () => {
    const { delivery } = await send(payload("[redirect]"));
    expect(delivery).toMatchObject({ ok: false, reason: "redirect", status: 302, attempts: 1 });
  });

  it("ends each attempt on its timeout when the receiver never answers", async () => {
    vi.stubEnv("WEBHOOK_ATTEMPT_TIMEOUT_MS", "150");
    vi.stubEnv("WEBHOOK_DEADLINE_MS", "900");
    const { delivery, requests } = await send(payload("[hang]"));

    expect(delivery).toMatchObject({ ok: false, reason: "timeout" });
    expect(delivery.attempts).toBeGreaterThanOrEqual(1);
    // The receiver answered none of them: only the attempt timeout ended each.
    expect(requests.map((request) => request.answered)).toEqual(Array(delivery.attempts).fill("hang"));
  });

  it("counts the deadline from when the visitor's wait began, not from the first attempt", async () => {
    vi.stubEnv("WEBHOOK_DEADLINE_MS", "1000");
    const body = payload("[delay=600]");
    // The limit checks took 800 ms of the visitor's 1,000: 200 are left for an answer that takes 600.
    const delivery = await submitted("waitlist", body, { started: performance.now() - 800 });
    expect(delivery).toMatchObject({ ok: false, reason: "timeout", attempts: 1 });
  });
});

describe("failureOf: why an attempt failed, as the operator reads it", () => {
  const refused = (status: number, body: string) => ({ ok: false, reason: "status", status, body });

  it("names the status and the word the workflow gave, with Twilio's status when it names one", () => {
    expect(failureOf(refused(401, JSON.stringify({ error: "signature" })))).toBe("status 401 signature");
    expect(failureOf(refused(503, JSON.stringify({ texted: false, error: "twilio_refused", twilioStatus: 401 })))).toBe(
      "status 503 twilio_refused 401",
    );
    expect(failureOf(refused(503, JSON.stringify({ error: "twilio_unreachable" })))).toBe(
      "status 503 twilio_unreachable",
    );
    expect(failureOf({ ok: false, reason: "timeout" })).toBe("timeout");
    expect(failureOf({ ok: true, status: 200, body: JSON.stringify({ error: "signature" }) })).toBeUndefined();
  });

  it("takes nothing else from a body: not a sentence, markup, a control character, a long word or a status that is not one", () => {
    for (const error of ["Bad signature", "<b>x</b>", "sig\u001b[2Jnature", "a".repeat(41), "Signature", 42, null])
      expect(failureOf(refused(401, JSON.stringify({ error }))), String(error)).toBe("status 401");
    expect(failureOf(refused(401, "signature"))).toBe("status 401");
    expect(failureOf(refused(502, "<html>Bad gateway</html>"))).toBe("status 502");
    expect(failureOf(refused(401, "null"))).toBe("status 401");
    for (const twilioStatus of [99, 600, 401.5, "401", "401; rm -rf"])
      expect(
        failureOf(refused(503, JSON.stringify({ error: "twilio_refused", twilioStatus }))),
        String(twilioStatus),
      ).toBe("status 503 twilio_refused");
    // The edges that are kept: one letter, 40 characters, digits and underscores after the first letter; 100 and 599.
    expect(failureOf(refused(400, JSON.stringify({ error: "a" })))).toBe("status 400 a");
    expect(failureOf(refused(400, JSON.stringify({ error: `b${"_9".repeat(19)}x` })))).toBe(
      `status 400 b${"_9".repeat(19)}x`,
    );
    expect(failureOf(refused(503, JSON.stringify({ error: "e", twilioStatus: 100 })))).toBe("status 503 e 100");
    expect(failureOf(refused(503, JSON.stringify({ error: "e", twilioStatus: 599 })))).toBe("status 503 e 599");
  });
});

describe("a row no form of this site wrote", () => {
  it("is never posted: it settles dead, and its sender is told it was unreadable", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const store = await database(readEnv());
    const claim = newClaim(60_000);
    const row = await insertLead(
      store,
      {
        id: `msg_foreign-${Date.now()}`,
        receiver: "catering",
        dedupe_key: null,
        payload: "{}",
        state: "pending",
        created_at: 0,
        next_attempt_at: 0,
      },
      claim,
    );
    const before = receiver.received.length;
    const sent = await sendClaimed(leadKind, {
      store,
      row: row!,
      claim,
      own: undefined,
      env: readEnv(),
      sender: "pass",
    });
    expect(sent).toMatchObject({ state: "unreadable", delivery: { ok: false, reason: "unreadable", attempts: 0 } });
    expect(receiver.received.length).toBe(before);
  });
});
