import { describe, expect, it, vi } from "vitest";
import { failingReceivers } from "@/server/outbox/alert-store";
import { alertsSettled, storeAnswered, storeFailed } from "@/server/outbox/alerts";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { dueNow, redeliveryPass } from "@/server/forms/leads";
import { submitLead } from "@/server/forms/submit-lead";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { webConsent } from "@/tests/support/waitlist-lead";

const receiver = setupWebhookReceiver();

/** The events of the lines logged at `level` so far. */
const events = (level: "error" | "info") =>
  vi.mocked(console[level]).mock.calls.map(([line]) => (JSON.parse(String(line)) as { event: string }).event);

describe("what the alerts hear of a sender, with no one to name them", () => {
  it("a visitor's failed lead marks its receiver failing, and the pass that delivers it working again", async () => {
    vi.stubEnv("CONTACT_WEBHOOK_URL", `${receiver.url}/hooks/contact`);
    vi.stubEnv("WEBHOOK_MAX_RETRIES", "0");
    vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(console, "info").mockImplementation(() => {});
    const store = await database(readEnv());
    const failing = async () => (await failingReceivers(store)).map(({ form }) => form);
    const payload = { name: `Heard ${Date.now()} [fail=1]`, email: "heard@example.com", message: "Hello" };
    const started = performance.now();
    expect(await submitLead({ form: "contact", payload, env: readEnv(), started })).toMatchObject({ ok: false });
    await alertsSettled();
    expect(await failing()).toContain("contact");
    await redeliveryPass(readEnv(), { due: () => dueNow(Number.MAX_SAFE_INTEGER) });
    await alertsSettled();
    expect(await failing()).not.toContain("contact");
  });

  it("a database outage is logged once, and its end once", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "info").mockImplementation(() => {});
    storeFailed(new Error("disk I/O error"));
    storeFailed(new Error("disk I/O error"));
    expect(events("error")).toStrictEqual(["lead_store_failed"]);
    storeAnswered();
    storeAnswered();
    expect(events("info")).toStrictEqual(["lead_store_recovered"]);
  });

  it("an outage ends at the next write that answers: a pass's settlement, or a repeat sign-up that sends nothing", async () => {
    vi.stubEnv("CONTACT_WEBHOOK_URL", `${receiver.url}/hooks/contact`);
    vi.stubEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", newWebhookSecret());
    vi.stubEnv("WEBHOOK_MAX_RETRIES", "0");
    for (const level of ["warn", "info", "error"] as const) vi.spyOn(console, level).mockImplementation(() => {});
    const recovered = () => events("info").filter((event) => event === "lead_store_recovered").length;
    const payload = { name: `Later ${Date.now()} [fail=1]`, email: "later@example.com", message: "Hello" };
    await submitLead({ form: "contact", payload, env: readEnv(), started: performance.now() });
    storeFailed(new Error("disk I/O error"));
    await redeliveryPass(readEnv(), { due: () => dueNow(Number.MAX_SAFE_INTEGER) });
    expect(recovered()).toBe(1);

    const phone = "+15035550177";
    const signUp = () =>
      submitLead({
        form: "waitlist",
        payload: { phone, name: `Ada ${Date.now()}` },
        env: readEnv(),
        started: performance.now(),
        consent: webConsent(phone),
      });
    expect(await signUp()).toMatchObject({ ok: true, via: "webhook" });
    storeFailed(new Error("disk I/O error"));
    expect(await signUp()).toMatchObject({ ok: true, via: "repeat" });
    expect(recovered()).toBe(2);
  });
});
