import { describe, expect, it } from "vitest";
import { sendable as sendableBy } from "@/server/outbox/send";
import { leadFacts, leadKey, leadKind, valuesOf, type LeadRow } from "./leads";
import { newWebhookId, welcomeOf } from "@/server/outbox/outbox-store";

const sendable = (row: LeadRow) => sendableBy(leadKind, row);

const row = (overrides: Partial<LeadRow> = {}): LeadRow => ({
  id: "msg_abc-1",
  receiver: "waitlist",
  dedupe_key: null,
  payload: '{"phone":"+15551234567","name":"Ada"}',
  state: "pending",
  attempts: 2,
  rounds: 1,
  created_at: 10,
  next_attempt_at: 20,
  last_failure: null,
  delivered_at: null,
  answer: null,
  carrier_code: null,
  claimed_by: null,
  claimed_until: null,
  ...overrides,
});

describe("sendable and valuesOf", () => {
  it("read a row this site wrote", () => {
    expect(sendable(row())).toBe(true);
    expect(valuesOf(row())).toStrictEqual({ phone: "+15551234567", name: "Ada" });
  });

  it.each([null, "", "{not json", "[]", "null", "42", '"text"'])(
    "refuse values that are not a JSON object: %s",
    (payload) => {
      expect(sendable(row({ payload }))).toBe(false);
      expect(valuesOf(row({ payload }))).toBeUndefined();
    },
  );

  it("refuse a form this site does not have, and an id that is not a webhook-id", () => {
    for (const bad of [
      { receiver: "catering" },
      { id: "abc" },
      { id: "msg_" },
      { id: "msg_a b" },
      { id: "x_msg_abc" },
    ]) {
      expect(sendable(row(bad))).toBe(false);
      expect(valuesOf(row(bad))).toBeUndefined();
    }
    expect(sendable(row({ receiver: "contact" }))).toBe(true);
  });
});

describe("leadKey and newWebhookId", () => {
  it("gives the same values of one form one key, and another form another", () => {
    const values = { phone: "+15551234567", name: "Ada" };
    expect(leadKey("waitlist", values)).toMatch(/^[0-9a-f]{64}$/);
    expect(leadKey("waitlist", { ...values })).toBe(leadKey("waitlist", values));
    expect(leadKey("contact", values)).not.toBe(leadKey("waitlist", values));
    expect(leadKey("waitlist", { ...values, name: "Ada L." })).not.toBe(leadKey("waitlist", values));
  });

  it("makes a new webhook-id each time", () => {
    expect(newWebhookId()).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(newWebhookId()).not.toBe(newWebhookId());
  });
});

describe("leadFacts", () => {
  it("says where a lead stands in whole seconds, without its values", () => {
    const lead = { receiver: "waitlist", id: "msg_1", attempts: 3, created_at: 1_000 };
    expect(leadFacts(lead, 2_499)).toStrictEqual({ form: "waitlist", webhookId: "msg_1", attempts: 3, ageSeconds: 1 });
    expect(leadFacts(lead, 2_500).ageSeconds).toBe(2);
  });
});

describe("welcomeOf", () => {
  it.each([
    [{ state: "delivered", answer: "texted" }, "texted"],
    [{ state: "delivered", answer: "texted:false" }, "refused"],
    [{ state: "delivered", answer: null }, "not reported"],
    [{ state: "pending", attempts: 1 }, "failing"],
    [{ state: "dead" }, "failing"],
    [{ state: "pending", attempts: 0 }, "waiting"],
    [{ state: "held", attempts: 0 }, "waiting"],
    [{ state: "awaiting_start", attempts: 0 }, "waiting"],
    [{ state: "awaiting_release", attempts: 0 }, "waiting"],
    [{ state: "revoked" }, "not sent"],
  ] as const)("reads %o as %s", (overrides, welcome) => {
    expect(welcomeOf(row(overrides))).toBe(welcome);
  });

  it("reads a number with no lead kept as not reported", () => {
    expect(welcomeOf(undefined)).toBe("not reported");
  });
});
