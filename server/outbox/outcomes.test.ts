import { describe, expect, expectTypeOf, it, vi } from "vitest";
import { failingReceivers } from "@/server/outbox/alert-store";
import { alertsSettled, operatorAlerts } from "@/server/outbox/alerts";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { storeFailed } from "@/server/outbox/store-outage";
import type { Listener, Outcome, StoreChange } from "@/server/outbox/outcomes";
import { dueNow, redeliveryPass, type PassOptions } from "./lead-pass";
import type { Claimed } from "./send";
import { submitLead, type Submission } from "@/server/forms/submit-lead";

const receiver = setupWebhookReceiver();

/** A listener that writes down what it hears. */
function recorder() {
  const heard: (Outcome | StoreChange["state"])[] = [];
  const listener: Listener = {
    settled: (_store, { outcome }) => heard.push(outcome),
    storeChanged: (change) => heard.push(change.state),
  };
  return { heard, listener };
}

describe("who hears what a sender learns", () => {
  it("is the listener the entry point names: a visitor's failed lead, then the pass that delivers it", async () => {
    vi.stubEnv("CONTACT_WEBHOOK_URL", `${receiver.url}/hooks/contact`);
    vi.stubEnv("WEBHOOK_MAX_RETRIES", "0");
    vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(console, "info").mockImplementation(() => {});
    const { heard, listener } = recorder();
    const payload = { name: `Heard ${Date.now()} [fail=1]`, email: "heard@example.com", message: "Hello" };
    const started = performance.now();
    expect(await submitLead({ form: "contact", payload, env: readEnv(), started, listener })).toMatchObject({
      ok: false,
    });
    expect(heard).toStrictEqual(["pending"]);
    await redeliveryPass(readEnv(), { listener, selection: () => dueNow(Number.MAX_SAFE_INTEGER) });
    expect(heard).toStrictEqual(["pending", "delivered"]);
  });

  it("is told of a database outage once, and of its end once", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "info").mockImplementation(() => {});
    const { heard, listener } = recorder();
    const { storeAnswered } = await import("@/server/outbox/store-outage");
    storeFailed(listener, new Error("disk I/O error"));
    storeFailed(listener, new Error("disk I/O error"));
    storeAnswered(listener);
    storeAnswered(listener);
    expect(heard).toStrictEqual(["down", "up"]);
  });

  it("are the operator's alerts where the site names them: a failed lead marks its receiver failing", async () => {
    vi.stubEnv("CONTACT_WEBHOOK_URL", `${receiver.url}/hooks/contact`);
    vi.stubEnv("WEBHOOK_MAX_RETRIES", "0");
    vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(console, "info").mockImplementation(() => {});
    const store = await database(readEnv());
    const payload = { name: `Alerted ${Date.now()} [fail=1]`, email: "alerted@example.com", message: "Hello" };
    await submitLead({
      form: "contact",
      payload,
      env: readEnv(),
      started: performance.now(),
      listener: operatorAlerts,
    });
    await alertsSettled();
    expect((await failingReceivers(store)).map(({ form }) => form)).toContain("contact");
  });

  it("cannot be left out: every entry that settles a lead requires one (a type error otherwise)", () => {
    expectTypeOf<PassOptions["listener"]>().toEqualTypeOf<Listener>();
    expectTypeOf<Submission["listener"]>().toEqualTypeOf<Listener>();
    expectTypeOf<Claimed["listener"]>().toEqualTypeOf<Listener>();
    expectTypeOf(storeFailed).parameter(0).toEqualTypeOf<Listener>();
    // @ts-expect-error a pass that names no listener does not compile
    const pass: PassOptions = { sender: "pass" };
    // @ts-expect-error nor does a submission
    const submission: Submission = { form: "contact", payload: {}, env: readEnv(), started: 0 };
    expect([pass, submission]).toHaveLength(2);
  });
});
