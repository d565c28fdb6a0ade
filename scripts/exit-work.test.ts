import { describe, expect, it, vi } from "vitest";
import { runExitWork } from "./exit-work.mjs";

const after = (ms: number, then: () => void) =>
  new Promise<void>((resolve) =>
    setTimeout(() => {
      then();
      resolve();
    }, ms),
  );

describe("runExitWork", () => {
  it("awaits each task in turn, in the order registered, before it resolves", async () => {
    const done: string[] = [];
    const finished = await runExitWork(
      new Map([
        ["redelivery", () => after(60, () => done.push("redelivery"))],
        ["alerts", () => after(10, () => done.push("alerts"))],
      ]),
      { limitMs: 5_000 },
    );
    expect(finished).toBe(true);
    expect(done).toStrictEqual(["redelivery", "alerts"]);
  });

  it("logs a failing task and runs the rest", async () => {
    const log = vi.fn();
    const done: string[] = [];
    const finished = await runExitWork(
      [
        ["redelivery", () => Promise.reject(new Error("database gone"))],
        ["alerts", () => after(1, () => done.push("alerts"))],
      ],
      { limitMs: 5_000, log },
    );
    expect(finished).toBe(true);
    expect(done).toStrictEqual(["alerts"]);
    expect(log).toHaveBeenCalledWith(
      "exit work redelivery failed:",
      expect.objectContaining({ message: "database gone" }),
    );
  });

  it("gives up at its limit, says so, and leaves no timer behind once the work is done", async () => {
    const log = vi.fn();
    const began = Date.now();
    expect(await runExitWork([["stuck", () => new Promise(() => {})]], { limitMs: 100, log })).toBe(false);
    expect(Date.now() - began).toBeGreaterThanOrEqual(90);
    expect(log).toHaveBeenCalledWith("exit work not finished after 100 ms");
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
    const before = timers();
    await runExitWork([["quick", async () => {}]], { limitMs: 60_000 });
    expect(timers()).toBe(before);
  });
});
