import { Webhook } from "standardwebhooks";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { contactFields, emptyContactValues } from "@/lib/forms/contact";
import { idleState } from "@/lib/forms/form-state";
import { stubActionEnv, withoutDelivery, heldLeads } from "@/tests/support/action-env";
import { formData } from "@/tests/support/form-data";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { sendForm } from "@/server/forms/send-form";
import { database } from "@/server/db/connect";
import { listLeads } from "@/server/outbox/outbox-store";
import { dueNow, redeliveryPass } from "@/server/forms/leads";
import { readEnv } from "@/server/env";
// What the forms' components bind the action to (see useServerForm).
const submitContact = (previous: unknown, data: FormData) => sendForm("contact", previous, data);

const receiver = setupWebhookReceiver();
let token = 0;

beforeEach(() => {
  stubActionEnv("CONTACT_WEBHOOK_URL", `${receiver.url}/hooks/contact`);
  // These tests reuse one email address; the limits have tests of their own.
  vi.stubEnv("RATE_LIMIT_EMAIL_POINTS", "1000");
});

/** A complete, valid request whose name carries a unique token (and receiver directives). */
function lead(overrides: Record<string, string> = {}, directive = "") {
  token += 1;
  return {
    name: `Julia Child t${token} ${directive}`.trim(),
    email: "julia@example.com",
    phone: "(555) 123-4567",
    clientCount: "6-15",
    currentTools: "Spreadsheets, Venmo",
    message: "Invoices eat my Sundays.",
    ...overrides,
  };
}

const submit = (fields: Record<string, string>) => submitContact(idleState(emptyContactValues), formData(fields));

describe("the contact form delivering", () => {
  it("posts exactly the six fields as JSON and clears the form", async () => {
    const fields = lead({ currentTools: "", message: "" });
    const state = await submit({ ...fields, email: "  julia@example.com  " });

    expect(state.status).toBe("success");
    expect(state.values).toEqual(emptyContactValues);
    const [request] = receiver.withName(fields.name);
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/hooks/contact");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.json).toEqual({
      name: fields.name,
      email: "julia@example.com",
      phone: "(555) 123-4567",
      clientCount: "6-15",
      currentTools: "",
      message: "",
    });
    expect(Object.keys(request?.json as object)).toEqual([
      "name",
      "email",
      "phone",
      "clientCount",
      "currentTools",
      "message",
    ]);
  });

  it("trims values and changes nothing else about them", async () => {
    const fields = lead({ message: "  Line one\nLine two – with “quotes” & <tags>  " });
    await submit(fields);
    const [request] = receiver.withName(fields.name);
    expect((request?.json as { message: string }).message).toBe("Line one\nLine two – with “quotes” & <tags>");
  });

  it("gives every answer its own id, so two identical outcomes both show", async () => {
    const first = await submit(lead());
    const second = await submit(lead());
    expect(first.id).not.toBe(second.id);
    expect(first.id).not.toBe("");
  });

  // Transient failures are retried twice (three attempts) before the visitor hears of it.
  it.each([
    ["a 4xx answer", "[status=422]", "status", 1],
    ["a 5xx answer", "[status=500]", "status", 3],
    ["a redirect, which is not followed", "[redirect]", "redirect", 1],
    ["a reset connection", "[reset]", "network", 3],
  ])("fails on %s and keeps every value", async (_label, directive, reason, attempts) => {
    const fields = lead({}, directive);
    const state = await submit(fields);

    expect(state.status).toBe("failed");
    expect(state.values).toEqual(fields);
    expect(receiver.withName(fields.name)).toHaveLength(attempts);
    const line = JSON.parse(vi.mocked(console.error).mock.calls.at(-1)?.[0] as string);
    expect(line).toMatchObject({ event: "submission", form: "contact", outcome: "failed", reason, attempts });
  });

  it("fails when the webhook never answers, each attempt ended by its timeout", async () => {
    const fields = lead({}, "[hang]");
    const state = await submit(fields);

    expect(state.status).toBe("failed");
    expect(state.values).toEqual(fields);
    const line = JSON.parse(vi.mocked(console.error).mock.calls.at(-1)?.[0] as string);
    expect(line).toMatchObject({ outcome: "failed", reason: "timeout" });
    // Every attempt reached the receiver, which answered none: each ended on its timeout.
    const requests = receiver.withName(fields.name);
    expect(line.attempts).toBe(3);
    expect(requests.map((request) => request.answered)).toEqual(Array(3).fill("hang"));
  });

  it("does not follow a redirect to its target", async () => {
    const fields = lead({}, "[redirect]");
    expect((await submit(fields)).status).toBe("failed");
    // The redirect itself was asked for, once, and its target never.
    expect(receiver.withName(fields.name).map((request) => [request.path, request.answered])).toEqual([
      ["/hooks/contact", 302],
    ]);
    expect(receiver.received.filter((request) => request.path === "/elsewhere")).toHaveLength(0);
  });

  it("fails when the webhook cannot be reached at all", async () => {
    vi.stubEnv("CONTACT_WEBHOOK_URL", "http://127.0.0.1:9/unreachable");
    const state = await submit(lead());
    expect(state.status).toBe("failed");
  });

  it("logs the outcome without the visitor's data", async () => {
    const fields = lead();
    await submit(fields);
    const line = vi.mocked(console.info).mock.calls.at(-1)?.[0] as string;
    expect(JSON.parse(line)).toMatchObject({
      event: "submission",
      form: "contact",
      outcome: "delivered",
      via: "webhook",
      status: 200,
    });
    for (const value of Object.values(fields)) expect(line).not.toContain(value);
  });
});

describe("the contact form validating", () => {
  it.each([
    ["name", { name: "   " }, "Please enter your name."],
    ["email", { email: "julia" }, "Please enter a valid email address."],
    ["email", { email: "julia@" }, "Please enter a valid email address."],
    ["email", { email: "" }, "Please enter a valid email address."],
    ["clientCount", { clientCount: "" }, "Please choose how many clients you serve."],
    ["clientCount", { clientCount: "100+" }, "Please choose how many clients you serve."],
    ["name", { name: "x".repeat(101) }, "Please use at most 100 characters."],
    ["phone", { phone: "1".repeat(31) }, "Please use at most 30 characters."],
    ["currentTools", { currentTools: "x".repeat(301) }, "Please use at most 300 characters."],
    ["message", { message: "x".repeat(3001) }, "Please use at most 3,000 characters."],
  ])("refuses a bad %s with a clear message and reaches no webhook", async (fieldName, override, message) => {
    const fields = lead(override);
    const state = await withoutDelivery(
      receiver,
      () => submit(fields),
      () => submit(lead()),
    );
    expect(state.status).toBe("invalid");
    expect(state.errors).toEqual({ [fieldName]: message });
    // What the visitor typed comes back, no longer than each field's cap (the browser's maxlength).
    const echoed = Object.fromEntries(
      Object.entries(fields).map(([name, value]) => [
        name,
        value.slice(0, (contactFields[name as keyof typeof contactFields] as { maxLength?: number }).maxLength),
      ]),
    );
    expect(state.values).toEqual(echoed);
  });

  it("accepts what the browser's email check accepts", async () => {
    for (const email of ["a@b", "first.last+tag@sub.example.co.uk"]) {
      expect((await submit(lead({ email }))).status).toBe("success");
    }
  });

  it("accepts every client-count band and an empty optional field", async () => {
    for (const clientCount of ["1-5", "6-15", "16-30", "30+"]) {
      expect((await submit(lead({ clientCount, phone: "" }))).status).toBe("success");
    }
  });

  it("treats a missing field or an uploaded file as empty", async () => {
    const data = formData({ email: "julia@example.com", clientCount: "1-5" });
    data.append("name", new Blob(["x"]), "name.txt");
    const state = await submitContact(idleState(emptyContactValues), data);
    expect(state.status).toBe("invalid");
    expect(state.errors.name).toBe("Please enter your name.");
  });
});

describe("the contact form without a webhook URL", () => {
  it("keeps each request as a held lead in the database, and sends nothing", async () => {
    vi.stubEnv("CONTACT_WEBHOOK_URL", "");
    const [first, second] = [lead(), lead()];
    const before = receiver.received.length;
    expect((await submit(first)).status).toBe("success");
    expect((await submit(second)).status).toBe("success");

    const held = (await heldLeads("contact")).filter((row) =>
      [first.name, second.name].some((name) => row.payload?.includes(name)),
    );
    expect(held.map((row) => JSON.parse(row.payload ?? ""))).toEqual([{ ...first }, { ...second }]);
    expect(held[0]?.id).toMatch(/^msg_/);
    expect(receiver.received.length).toBe(before);
    const line = JSON.parse(vi.mocked(console.info).mock.calls.at(-1)?.[0] as string);
    expect(line).toMatchObject({ outcome: "held", via: "held", webhookId: held[1]?.id });
    // Positive control: with the URL back, the same receiver gets the next request.
    vi.stubEnv("CONTACT_WEBHOOK_URL", `${receiver.url}/hooks/contact`);
    const third = lead();
    expect((await submit(third)).status).toBe("success");
    expect(receiver.received.length).toBe(before + 1);
  });
});

describe("a contact request the webhook failed", () => {
  it("is kept, and the next pass delivers it under the same webhook-id with the same six fields", async () => {
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "1");
    const secret = newWebhookSecret();
    vi.stubEnv("CONTACT_WEBHOOK_SECRET", secret);
    const fields = lead({}, "[fail=3]");
    expect((await submit(fields)).status).toBe("failed");
    const [kept] = await pendingLeads(fields.name);
    expect(kept).toMatchObject({ receiver: "contact", state: "pending", attempts: 3 });

    // This lead alone, due now: the other tests' failures and the schedule's wait are not this test's.
    await (await database(readEnv())).db.deleteFrom("outbox").where("id", "!=", kept!.id).execute();
    expect(await redeliveryPass(readEnv(), { due: () => dueNow(Number.MAX_SAFE_INTEGER) })).toMatchObject({
      delivered: 1,
    });
    const requests = receiver.withName(fields.name);
    expect(requests.map((request) => [request.headers["webhook-id"], request.answered])).toStrictEqual([
      [kept!.id, 503],
      [kept!.id, 503],
      [kept!.id, 503],
      [kept!.id, 200],
    ]);
    // Signed when redelivered, with the six fields the visitor sent, trimmed.
    expect(new Webhook(secret).verify(requests[3]!.body, requests[3]!.headers as Record<string, string>)).toStrictEqual(
      fields,
    );
    expect(Object.keys(requests[3]!.json as object).sort()).toStrictEqual(Object.keys(contactFields).sort());
    expect(await pendingLeads(fields.name)).toStrictEqual([]);
  });
});

/** The contact form's pending leads whose name carries the token. */
async function pendingLeads(name: string) {
  return (await listLeads(await database(readEnv()), { states: ["pending"], form: "contact" })).filter((row) =>
    row.payload?.includes(name),
  );
}
