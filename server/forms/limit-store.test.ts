import { RateLimiterRes } from "rate-limiter-flexible";
import { describe, expect, it } from "vitest";
import { setupBothEngines } from "@/tests/support/both-engines";
import { consumeInDatabase, forgetSpentWindows, rewardInDatabase } from "./limit-store";

const open = setupBothEngines();

describe.each(["sqlite", "postgres"] as const)("a per-number limit in the database, on %s", (engine) => {
  const window = { name: "phone", points: 3, duration: 86_400 };
  const day = 86_400_000;

  it("counts across instances (two connections), refuses the fourth, and starts a new window when it runs out", async () => {
    const [a, b] = [await open(engine), await open(engine)];
    const phone = `+1555030${engine === "sqlite" ? "1001" : "2001"}`;
    const at = 1_000_000;
    const counted: number[][] = [];
    for (const store of [a, b, a]) {
      const { consumedPoints, remainingPoints } = await consumeInDatabase(store, window, phone, at);
      counted.push([consumedPoints, remainingPoints]);
    }
    // What is left is told as Redis' limiter tells it (rate-limiter-flexible's RateLimiterRes), none below 0.
    expect(counted).toStrictEqual([
      [1, 2],
      [2, 1],
      [3, 0],
    ]);
    const refusal = await consumeInDatabase(b, window, phone, at + 1_000).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RateLimiterRes);
    expect(refusal).toMatchObject({ consumedPoints: 4, remainingPoints: 0 });
    expect((refusal as RateLimiterRes).msBeforeNext).toBe(day - 1_000);
    // Another number has its own count.
    expect((await consumeInDatabase(a, window, `${phone.slice(0, -1)}9`, at)).consumedPoints).toBe(1);
    // The window ran out: a new one.
    expect((await consumeInDatabase(a, window, phone, at + day)).consumedPoints).toBe(1);
  });

  it("gives a point back within the window, and keeps no number in the table", async () => {
    const store = await open(engine);
    const phone = `+1555030${engine === "sqlite" ? "1002" : "2002"}`;
    const at = 5_000_000;
    for (let i = 0; i < 3; i += 1) await consumeInDatabase(store, window, phone, at);
    await rewardInDatabase(store, window, phone, at);
    expect((await consumeInDatabase(store, window, phone, at)).consumedPoints).toBe(3);
    const keys = await store.db.selectFrom("limit_counts").select("key").execute();
    expect(keys.length).toBeGreaterThan(0);
    for (const { key } of keys) {
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(key).not.toContain(phone.slice(2));
    }
  });

  it("forgets the windows that ran out, and only those", async () => {
    const store = await open(engine);
    const at = 9_000_000;
    await consumeInDatabase(store, { name: "phone", points: 3, duration: 60 }, "+15550303001", at);
    await consumeInDatabase(store, { name: "phone", points: 3, duration: 3_600 }, "+15550303002", at);
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
    expect(await forgetSpentWindows(store, at + 61_000)).toBeGreaterThanOrEqual(1);
    const after = await rows();
    expect(after).toBeLessThan(before);
    expect(
      (await consumeInDatabase(store, { name: "phone", points: 3, duration: 3_600 }, "+15550303002", at))
        .consumedPoints,
    ).toBe(2);
  });
});
