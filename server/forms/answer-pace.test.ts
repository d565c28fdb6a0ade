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

  it("draws at random from the form's last 32 deliveries, its own and no other form's", async () => {
    vi.useFakeTimers();
    // 33 noted: the first (5,000 ms) is older than the last 32, and the oldest kept is 1,000 ms, the newest 300 ms.
    noteDelivered("pace-b", 5_000);
    noteDelivered("pace-b", 1_000);
    for (let i = 0; i < 30; i += 1) noteDelivered("pace-b", 200);
    noteDelivered("pace-b", 300);
    noteDelivered("pace-other", 8_000);
    const random = vi.spyOn(Math, "random");
    random.mockReturnValue(0);
    const oldest = paceLikeDelivery("pace-b", 0, 9_000);
    expect(await settledAfter(oldest, 999)).toBe(false);
    expect(await settledAfter(oldest, 1)).toBe(true);
    random.mockReturnValue(0.999);
    expect(await settledAfter(paceLikeDelivery("pace-b", 0, 9_000), 299)).toBe(false);
    expect(await settledAfter(paceLikeDelivery("pace-b", 0, 9_000), 300)).toBe(true);
    random.mockReturnValue(0.5);
    expect(await settledAfter(paceLikeDelivery("pace-b", 0, 9_000), 200)).toBe(true);
  });

  it("waits as long as the first delivery a form notes, whatever the draw", async () => {
    vi.useFakeTimers();
    noteDelivered("pace-one", 500);
    for (const draw of [0, 0.5, 0.999]) {
      vi.spyOn(Math, "random").mockReturnValue(draw);
      expect(await settledAfter(paceLikeDelivery("pace-one", 0, 9_000), 499)).toBe(false);
      expect(await settledAfter(paceLikeDelivery("pace-one", 0, 9_000), 500)).toBe(true);
    }
  });

  it("guesses a delivery's time before the form has one, never waits past the deadline, and not at all when already as slow", async () => {
    vi.useFakeTimers();
    const first = paceLikeDelivery("pace-new", 0, 9_000);
    expect(await settledAfter(first, FIRST_GUESS_MS - 1)).toBe(false);
    expect(await settledAfter(first, 1)).toBe(true);
    noteDelivered("pace-slow", 20_000);
    expect(await settledAfter(paceLikeDelivery("pace-slow", 1_000, 3_000), 1_999)).toBe(false);
    // As slow as the delivery drawn, or slower: no timer at all.
    noteDelivered("pace-c", 300);
    const timers = vi.getTimerCount();
    const asSlow = paceLikeDelivery("pace-c", 300, 9_000);
    const slower = paceLikeDelivery("pace-c", 500, 9_000);
    expect(vi.getTimerCount()).toBe(timers);
    await Promise.all([asSlow, slower]);
  });
});
