import { RateLimiterRes } from "rate-limiter-flexible";
import { afterEach, describe, expect, it, vi } from "vitest";
import { setupBothEngines } from "@/tests/support/both-engines";
import { consumeInDatabase, forgetSpentWindows, rewardInDatabase } from "./limit-store";

const open = setupBothEngines();
afterEach(() => vi.useRealTimers());

/** Counts as the limiter does at `time`. */
const at = <T>(time: number, count: () => Promise<T>) => {
  vi.setSystemTime(time);
  return count();
};

describe.each(["sqlite", "postgres"] as const)("a per-number limit in the database, on %s", (engine) => {
  const window = { name: "phone", points: 3, duration: 86_400 };
  const day = 86_400_000;

  it("counts across instances (two connections), refuses the fourth, and starts a new window when it runs out", async () => {
    const [a, b] = [await open(engine), await open(engine)];
    const phone = `+1555030${engine === "sqlite" ? "1001" : "2001"}`;
    const start = 1_000_000;
    const counted: number[][] = [];
    for (const store of [a, b, a]) {
      const { consumedPoints, remainingPoints } = await at(start, () => consumeInDatabase(store, window, phone));
      counted.push([consumedPoints, remainingPoints]);
    }
    // What is left is told as Redis' limiter tells it (rate-limiter-flexible's RateLimiterRes), none below 0.
    expect(counted).toStrictEqual([
      [1, 2],
      [2, 1],
      [3, 0],
    ]);
    const refusal = await at(start + 1_000, () => consumeInDatabase(b, window, phone)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RateLimiterRes);
    expect(refusal).toMatchObject({ consumedPoints: 4, remainingPoints: 0 });
    expect((refusal as RateLimiterRes).msBeforeNext).toBe(day - 1_000);
    // Another number has its own count.
    expect((await at(start, () => consumeInDatabase(a, window, `${phone.slice(0, -1)}9`))).consumedPoints).toBe(1);
    // The window ran out: a new one.
    expect((await at(start + day, () => consumeInDatabase(a, window, phone))).consumedPoints).toBe(1);
  });

  it("gives a point back within the window, and keeps no number in the table", async () => {
    const store = await open(engine);
    const phone = `+1555030${engine === "sqlite" ? "1002" : "2002"}`;
    const start = 5_000_000;
    for (let i = 0; i < 3; i += 1) await at(start, () => consumeInDatabase(store, window, phone));
    await at(start, () => rewardInDatabase(store, window, phone));
    expect((await at(start, () => consumeInDatabase(store, window, phone))).consumedPoints).toBe(3);
    const keys = await store.db.selectFrom("limit_counts").select("key").execute();
    expect(keys.length).toBeGreaterThan(0);
    for (const { key } of keys) {
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(key).not.toContain(phone.slice(2));
    }
  });

  it("forgets the windows that ran out, and only those", async () => {
    const store = await open(engine);
    const start = 9_000_000;
    await at(start, () => consumeInDatabase(store, { name: "phone", points: 3, duration: 60 }, "+15550303001"));
    await at(start, () => consumeInDatabase(store, { name: "phone", points: 3, duration: 3_600 }, "+15550303002"));
    const rows = async () =>
      Number(
        (
          await store.db
            .selectFrom("limit_counts")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await rows();
    expect(await forgetSpentWindows(store, start + 61_000)).toBeGreaterThanOrEqual(1);
    const after = await rows();
    expect(after).toBeLessThan(before);
    expect(
      (await at(start, () => consumeInDatabase(store, { name: "phone", points: 3, duration: 3_600 }, "+15550303002")))
        .consumedPoints,
    ).toBe(2);
  });
});
