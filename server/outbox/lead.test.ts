import { describe, expect, it } from "vitest";
import { leadFacts, leadKey, leadOf, rowOf, type LeadRow } from "./lead";
import { newWebhookId } from "@/server/outbox/claims";

const row = (overrides: Partial<LeadRow> = {}): LeadRow => ({
  id: "msg_abc-1",
  form: "waitlist",
  dedupe_key: null,
  payload: '{"phone":"+15551234567","name":"Ada"}',
  state: "pending",
  attempts: 2,
  rounds: 1,
  created_at: 10,
  next_attempt_at: 20,
  last_failure: null,
  delivered_at: null,
  claimed_by: null,
  claimed_until: null,
  ...overrides,
});

describe("leadOf", () => {
  it("reads a row this site wrote", () => {
    expect(leadOf(row())).toStrictEqual({
      id: "msg_abc-1",
      form: "waitlist",
      payload: { phone: "+15551234567", name: "Ada" },
      body: row().payload,
      state: "pending",
      attempts: 2,
      rounds: 1,
      createdAt: 10,
      nextAttemptAt: 20,
    });
    expect(leadOf(row({ last_failure: "status 503" }))?.lastFailure).toBe("status 503");
  });

  it.each([null, "", "{not json", "[]", "null", "42", '"text"'])(
    "refuses values that are not a JSON object: %s",
    (payload) => {
      expect(leadOf(row({ payload }))).toBeUndefined();
    },
  );

  it("refuses a form this site does not have, and an id that is not a webhook-id", () => {
    expect(leadOf(row({ form: "catering" }))).toBeUndefined();
    expect(leadOf(row({ id: "abc" }))).toBeUndefined();
    expect(leadOf(row({ id: "msg_" }))).toBeUndefined();
    expect(leadOf(row({ id: "msg_a b" }))).toBeUndefined();
    expect(leadOf(row({ form: "contact" }))?.form).toBe("contact");
  });
});

describe("rowOf", () => {
  it("keeps a lead as the row leadOf reads back, unclaimed and undelivered, under the key it is given", () => {
    expect(rowOf(leadOf(row({ last_failure: "status 503" }))!, "k")).toStrictEqual(
      row({ last_failure: "status 503", dedupe_key: "k" }),
    );
    expect(rowOf(leadOf(row())!, null)).toStrictEqual(row());
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
    const lead = { form: "waitlist" as const, id: "msg_1", attempts: 3, createdAt: 1_000 };
    expect(leadFacts(lead, 2_499)).toStrictEqual({ form: "waitlist", webhookId: "msg_1", attempts: 3, ageSeconds: 1 });
    expect(leadFacts(lead, 2_500).ageSeconds).toBe(2);
  });
});
