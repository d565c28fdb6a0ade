import { afterEach, describe, expect, it, vi } from "vitest";
import { FIRST_GUESS_MS, noteDelivered, paceLikeDelivery } from "./answer-pace";

afterEach(() => vi.useRealTimers());

/** Whether `pace` has resolved after `ms` more of the fake clock. */
async function settledAfter(pace: Promise<void>, ms: number) {
  let settled = false;
  void pace.then(() => (settled = true));
  await vi.advanceTimersByTimeAsync(ms);
  return settled;
}

describe("paceLikeDelivery", () => {
  it("holds a post that sent nothing until it has taken as long as one of the form's deliveries", async () => {
    vi.useFakeTimers();
    for (let i = 0; i < 40; i += 1) noteDelivered("pace-a", 400);
    const pace = paceLikeDelivery("pace-a", 100, 9_000);
    expect(await settledAfter(pace, 299)).toBe(false);
    expect(await settledAfter(pace, 1)).toBe(true);
  });

  it("draws from the form's last 32 deliveries, its own and no other form's", async () => {
    vi.useFakeTimers();
    for (let i = 0; i < 8; i += 1) noteDelivered("pace-b", 5_000);
    for (let i = 0; i < 32; i += 1) noteDelivered("pace-b", 200);
    noteDelivered("pace-other", 8_000);
    // The 5,000 ms deliveries are older than the last 32: every draw is 200 ms.
    for (let i = 0; i < 20; i += 1) expect(await settledAfter(paceLikeDelivery("pace-b", 0, 9_000), 200)).toBe(true);
  });

  it("guesses a delivery's time before the form has one, never waits past the deadline, and not at all when already as slow", async () => {
    vi.useFakeTimers();
    const first = paceLikeDelivery("pace-new", 0, 9_000);
    expect(await settledAfter(first, FIRST_GUESS_MS - 1)).toBe(false);
    expect(await settledAfter(first, 1)).toBe(true);
    noteDelivered("pace-slow", 20_000);
    expect(await settledAfter(paceLikeDelivery("pace-slow", 1_000, 3_000), 1_999)).toBe(false);
    noteDelivered("pace-c", 300);
    expect(await settledAfter(paceLikeDelivery("pace-c", 500, 9_000), 0)).toBe(true);
  });
});
