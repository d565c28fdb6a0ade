import { beforeEach, describe, expect, it, vi } from "vitest";
import { idleState } from "@/lib/forms/form-state";
import { emptyWaitlistValues, waitlistMessages } from "@/lib/forms/waitlist";
import { stubActionEnv, withoutDelivery, withTempOutbox } from "@/tests/support/action-env";
import { formData } from "@/tests/support/form-data";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { joinWaitlist } from "./join-waitlist";

const m = waitlistMessages.invalid;
const receiver = setupWebhookReceiver();
let token = 0;

beforeEach(() => {
  stubActionEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
  // These tests reuse one phone number; the limits have tests of their own.
  vi.stubEnv("RATE_LIMIT_PHONE_POINTS", "1000");
  vi.stubEnv("RATE_LIMIT_WAITLIST_PER_MINUTE", "1000");
});

function signup(overrides: Record<string, string> = {}, directive = "") {
  token += 1;
  return { name: `Ada Lovelace w${token} ${directive}`.trim(), phone: "(555) 123-4567", consent: "on", ...overrides };
}

const submit = (fields: Record<string, string>) => joinWaitlist(idleState(emptyWaitlistValues), formData(fields));

describe("joinWaitlist delivering", () => {
  it("posts exactly {phone, name}, trimmed, and never the consent flag", async () => {
    const fields = signup();
    const state = await submit({ ...fields, name: `  ${fields.name} `, phone: " (555) 123-4567 " });

    expect(state.status).toBe("success");
    expect(state.values).toEqual(emptyWaitlistValues);
    const [request, ...more] = receiver.withName(fields.name);
    expect(more).toEqual([]);
    expect(request?.path).toBe("/hooks/waitlist");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.body).toBe(JSON.stringify({ phone: "(555) 123-4567", name: fields.name }));
  });

  it.each([
    ["a 4xx answer", "[status=404]"],
    ["a 5xx answer", "[status=502]"],
    ["a redirect", "[redirect]"],
    ["a reset connection", "[reset]"],
    ["no answer within the deadline", "[hang]"],
  ])("fails on %s and keeps every value, the checkbox included", async (_label, directive) => {
    const fields = signup({}, directive);
    const state = await submit(fields);
    expect(state.status).toBe("failed");
    expect(state.values).toEqual({ name: fields.name, phone: fields.phone, consent: true });
  });
});

describe("joinWaitlist validating", () => {
  it.each([
    ["name", { name: "A" }, m.name],
    ["name", { name: "  A  " }, m.name],
    ["name", { name: "A".repeat(101) }, m.nameTooLong],
    ["phone", { phone: "555-1234" }, m.phone],
    ["phone", { phone: "not a phone number" }, m.phone],
    ["phone", { phone: "call me maybe 5551234567" }, m.phone],
    ["phone", { phone: "(555) 123-456" }, m.phone],
    ["phone", { phone: "+1 555 123 4567 890 12" }, m.phone],
  ])("refuses a bad %s with the spec's message and reaches no webhook", async (fieldName, override, message) => {
    const state = await withoutDelivery(receiver, () => submit(signup(override)));
    expect(state.status).toBe("invalid");
    expect(state.errors).toEqual({ [fieldName]: message });
  });

  it("refuses a sign-up without consent and reaches no webhook", async () => {
    const { name, phone } = signup();
    const fields = { name, phone };
    const before = receiver.received.length;
    const state = await submit(fields);
    expect(state.status).toBe("invalid");
    expect(state.errors).toEqual({ consent: m.consent });
    expect(state.values.consent).toBe(false);
    expect(receiver.received.length).toBe(before);
  });

  it("reports every bad field at once", async () => {
    const state = await submit({ name: "", phone: "" });
    expect(state.errors).toEqual({ name: m.name, phone: m.phone, consent: m.consent });
  });

  it.each(["(555) 123-4567", "555-123-4567", "+44 20 7946 0958", "5551234567", "555.123.4567"])(
    "accepts the phone number %s",
    async (phone) => {
      expect((await submit(signup({ phone }))).status).toBe("success");
    },
  );
});

describe("joinWaitlist without a webhook URL", () => {
  it("appends the sign-up, without consent, to the waitlist outbox file", async () => {
    await withTempOutbox("waitlist", async (lines) => {
      const fields = signup();
      expect((await submit(fields)).status).toBe("success");
      const [line] = await lines();
      expect(JSON.parse(line ?? "").payload).toEqual({ phone: fields.phone, name: fields.name });
    });
  });
});
