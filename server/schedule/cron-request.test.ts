import { beforeEach, describe, expect, it, vi } from "vitest";
import { GET, maxDuration } from "@/app/api/cron/redeliver/route";
import { cronMaxDurationSeconds } from "./cron-request";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { leadById } from "@/server/leads/lead-store";
import { makeDue } from "@/tests/support/lead-sending";
import { submitted } from "@/tests/support/lead-sending";

const receiver = setupWebhookReceiver();

const secret = "cron-secret-of-32-characters-xyz";
const call = (authorization?: string) =>
  GET(new Request("http://localhost/api/cron/redeliver", { headers: authorization ? { authorization } : {} }));

beforeEach(() => {
  for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
});

it("gives the route the time the pass's budget is fitted to", () => {
  expect(maxDuration).toBe(cronMaxDurationSeconds);
});

describe("the cron route", () => {
  it("does not exist without CRON_SECRET", async () => {
    vi.stubEnv("CRON_SECRET", "");
    expect((await call(`Bearer ${secret}`)).status).toBe(404);
  });

  it("refuses a call without Vercel Cron's bearer secret", async () => {
    vi.stubEnv("CRON_SECRET", secret);
    for (const authorization of [undefined, secret, `Bearer ${secret}x`, `Bearer ${secret.slice(1)}`, "Basic abc"]) {
      expect((await call(authorization)).status, String(authorization)).toBe(401);
    }
  });

  it("runs one redelivery pass for Vercel Cron: a due lead is delivered, and the answer says so", async () => {
    vi.stubEnv("CRON_SECRET", secret);
    vi.stubEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
    vi.stubEnv("WEBHOOK_RETRY_BASE_MS", "10");
    const body = { phone: "+15551234567", name: `Cron ${Date.now()} [fail=3]` };
    const first = await submitted("waitlist", body);
    expect(first.ok).toBe(false);
    await makeDue(first.webhookId);

    const response = await call(`Bearer ${secret}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toStrictEqual({
      delivered: 1,
      pending: 0,
      dead: 0,
      held: 0,
      unreadable: 0,
      paused: [],
      budgetSpent: false,
    });
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(receiver.withName(body.name).map((request) => request.answered)).toStrictEqual([503, 503, 503, 200]);
    expect(await leadById(await database(readEnv()), first.webhookId)).toMatchObject({ state: "delivered" });
    // Nothing is due any more: a second call sends nothing.
    expect(await (await call(`Bearer ${secret}`)).json()).toMatchObject({ delivered: 0 });
    expect(receiver.withName(body.name)).toHaveLength(4);
  });
});
