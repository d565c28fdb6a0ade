import { beforeEach, describe, expect, it, vi } from "vitest";
import { GET, maxDuration } from "@/app/api/cron/redeliver/route";
import { cronMaxDurationSeconds } from "./cron-request";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { leadById } from "@/server/outbox/outbox-store";
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
    const response = await call(`Bearer ${secret}`);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe("Not Found");
  });

  it("refuses a call without Vercel Cron's bearer secret", async () => {
    vi.stubEnv("CRON_SECRET", secret);
    for (const authorization of [undefined, secret, `Bearer ${secret}x`, `Bearer ${secret.slice(1)}`, "Basic abc"]) {
      const response = await call(authorization);
      expect(response.status, String(authorization)).toBe(401);
      expect(await response.text()).toBe("Unauthorized");
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
    }
  });

  it("runs one tick of every task for Vercel Cron: a due lead is delivered, and the answer says so", async () => {
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
      retention: expect.objectContaining({ ran: expect.any(Boolean) }),
      leads: {
        delivered: 1,
        pending: 0,
        dead: 0,
        held: 0,
        unreadable: 0,
        awaiting_release: 0,
        paused: [],
        budgetSpent: false,
        probed: [],
      },
      // No INVITE_WEBHOOK_URL: the launch invitations wait.
      invitations: {
        texted: 0,
        refused: 0,
        skipped: 0,
        waiting: 0,
        failed: 0,
        retrying: 0,
        paused: [],
        budgetSpent: false,
        probed: [],
      },
      "alerts review": { reviewed: true },
    });
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(receiver.withName(body.name).map((request) => request.answered)).toStrictEqual([503, 503, 503, 200]);
    expect(await leadById(await database(readEnv()), first.webhookId)).toMatchObject({ state: "delivered" });
    // Nothing is due any more: a second call sends nothing.
    expect(await (await call(`Bearer ${secret}`)).json()).toMatchObject({ leads: { delivered: 0 } });
    expect(receiver.withName(body.name)).toHaveLength(4);
    const passes = vi
      .mocked(console.info)
      .mock.calls.map((line) => JSON.parse(String(line[0])) as Record<string, unknown>)
      .filter((line) => line.event === "scheduled_task");
    expect(passes).toStrictEqual([expect.objectContaining({ task: "leads", via: "cron", delivered: 1 })]);
  });

  it("starts no attempt when an attempt could outlast the function: its budget is the time left after one", async () => {
    vi.stubEnv("CRON_SECRET", secret);
    vi.stubEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
    vi.stubEnv("WEBHOOK_RETRY_BASE_MS", "10");
    const body = { phone: "+15551234567", name: `Cron budget ${Date.now()} [fail=3]` };
    const first = await submitted("waitlist", body);
    await makeDue(first.webhookId);
    // 60 s of the function's 60 s for one attempt: nothing left to start one in.
    vi.stubEnv("WEBHOOK_ATTEMPT_TIMEOUT_MS", "60000");
    expect(await (await call(`Bearer ${secret}`)).json()).toMatchObject({ leads: { delivered: 0, budgetSpent: true } });
    expect(receiver.withName(body.name)).toHaveLength(3);
    // The same lead with a 4 s attempt: the pass has 51 s, and sends it (the test above).
    vi.stubEnv("WEBHOOK_ATTEMPT_TIMEOUT_MS", "4000");
    expect(await (await call(`Bearer ${secret}`)).json()).toMatchObject({
      leads: { delivered: 1, budgetSpent: false },
    });
  });
});
