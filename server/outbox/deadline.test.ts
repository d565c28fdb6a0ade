import { beforeEach, describe, expect, it, vi } from "vitest";
import { readEnv } from "@/server/env";
import { waitlistLead } from "@/tests/support/waitlist-lead";
import { newClaim } from "@/server/outbox/outbox-store";
import { sendClaimed, type Sender } from "./send";
import { leadKind } from "@/server/forms/leads";

// The receiver, in virtual time: each attempt takes the whole time it is given and times out.
const given: number[] = [];
vi.mock("@/server/outbox/webhook", async (original) => ({
  ...(await original<object>()),
  postSigned: async (_webhook: unknown, { timeoutMs }: { timeoutMs: number }) => {
    given.push(timeoutMs);
    vi.advanceTimersByTime(timeoutMs);
    return { ok: false, reason: "timeout" };
  },
}));

beforeEach(() => {
  given.length = 0;
  vi.stubEnv("WAITLIST_WEBHOOK_URL", "https://workflow.example/hooks/waitlist");
  for (const method of ["warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
  return () => vi.useRealTimers();
});

describe("the deadline, on a virtual clock", () => {
  /**
   * Sends one lead, as a sender that holds its claim does, on a clock only the
   * test moves: each attempt takes the whole time it is given and times out, a
   * pause takes its length, nothing else takes any. `spent` is what the
   * visitor's wait used before. No database: nothing is kept, nothing told.
   */
  async function timed(settings: Record<string, string>, { sender = "visitor" as Sender, spent = 0 } = {}) {
    for (const [name, value] of Object.entries({ WEBHOOK_RETRY_BASE_MS: "10", ...settings })) vi.stubEnv(name, value);
    // The longest backoff: a retry waits base × 2^(n-1).
    vi.spyOn(Math, "random").mockReturnValue(1);
    vi.useFakeTimers({ toFake: ["performance", "setTimeout"] });
    const paused: number[] = [];
    const pause = vi.spyOn(globalThis, "setTimeout");
    const began = performance.now();
    const started = began - spent;
    const sending = sendClaimed(leadKind, {
      own: undefined,
      store: undefined,
      row: waitlistLead(),
      claim: newClaim(60_000),
      env: readEnv(),
      sender,
      started,
    });
    await vi.runAllTimersAsync();
    const { delivery } = await sending;
    paused.push(...pause.mock.calls.map(([, ms]) => Number(ms)));
    expect(delivery.attempts).toBe(given.length);
    return { given: [...given.splice(0)], paused, took: performance.now() - started };
  }

  it("retries twice, each attempt with its full timeout, when the deadline leaves room", async () => {
    expect(await timed({ WEBHOOK_ATTEMPT_TIMEOUT_MS: "150", WEBHOOK_DEADLINE_MS: "900" })).toStrictEqual({
      given: [150, 150, 150],
      paused: [10, 20],
      took: 480,
    });
  });

  it("shortens the last attempt to what the deadline leaves, and ends on it", async () => {
    expect(await timed({ WEBHOOK_ATTEMPT_TIMEOUT_MS: "300", WEBHOOK_DEADLINE_MS: "900" })).toStrictEqual({
      given: [300, 300, 270],
      paused: [10, 20],
      took: 900,
    });
  });

  it("starts an attempt that would have exactly 250 ms, and none shorter", async () => {
    // 560 − 300 − 10 leaves 250 for the second attempt; after it nothing is left.
    expect(await timed({ WEBHOOK_ATTEMPT_TIMEOUT_MS: "300", WEBHOOK_DEADLINE_MS: "560" })).toStrictEqual({
      given: [300, 250],
      paused: [10],
      took: 560,
    });
    // 559 leaves 249: not worth starting.
    expect(await timed({ WEBHOOK_ATTEMPT_TIMEOUT_MS: "300", WEBHOOK_DEADLINE_MS: "559" })).toStrictEqual({
      given: [300],
      paused: [],
      took: 300,
    });
  });

  it("stops retrying when the next attempt would overrun the deadline", async () => {
    expect(await timed({ WEBHOOK_ATTEMPT_TIMEOUT_MS: "300", WEBHOOK_DEADLINE_MS: "500" })).toStrictEqual({
      given: [300],
      paused: [],
      took: 300,
    });
  });

  it("counts from when the visitor's wait began: 800 ms spent of 1,000 leave one attempt of 200", async () => {
    expect(
      await timed({ WEBHOOK_ATTEMPT_TIMEOUT_MS: "4000", WEBHOOK_DEADLINE_MS: "1000" }, { spent: 800 }),
    ).toStrictEqual({ given: [200], paused: [], took: 1000 });
  });

  it("makes no more than WEBHOOK_MAX_RETRIES retries however much time is left", async () => {
    expect(
      (await timed({ WEBHOOK_ATTEMPT_TIMEOUT_MS: "100", WEBHOOK_DEADLINE_MS: "60000", WEBHOOK_MAX_RETRIES: "0" }))
        .given,
    ).toStrictEqual([100]);
    expect(
      (await timed({ WEBHOOK_ATTEMPT_TIMEOUT_MS: "100", WEBHOOK_DEADLINE_MS: "60000", WEBHOOK_MAX_RETRIES: "4" }))
        .given,
    ).toStrictEqual([100, 100, 100, 100, 100]);
  });

  it("gives a pass or the operator one attempt with the full timeout, whatever the visitor's deadline", async () => {
    for (const sender of ["pass", "operator"] as const) {
      expect(
        await timed({ WEBHOOK_ATTEMPT_TIMEOUT_MS: "4000", WEBHOOK_DEADLINE_MS: "1000" }, { sender, spent: 5_000 }),
      ).toStrictEqual({ given: [4000], paused: [], took: 9000 });
    }
  });
});
