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
    expect(log).toHaveBeenCalledWith({
      event: "exit_work_failed",
      task: "redelivery",
      message: expect.stringMatching(/^Error: database gone\n\s+at /),
    });
  });

  it("gives up at its limit, says so, and leaves no timer behind once the work is done", async () => {
    const log = vi.fn();
    const began = Date.now();
    expect(await runExitWork([["stuck", () => new Promise(() => {})]], { limitMs: 100, log })).toBe(false);
    expect(Date.now() - began).toBeGreaterThanOrEqual(90);
    expect(log).toHaveBeenCalledWith({ event: "exit_work_unfinished", limitMs: 100 });
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
    const before = timers();
    await runExitWork([["quick", async () => {}]], { limitMs: 60_000 });
    expect(timers()).toBe(before);
  });
});

describe("runExitWork's own log", () => {
  it("writes each line as one JSON object, the error's stack inside and every control character escaped", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line: string) => void lines.push(line));
    try {
      await runExitWork([["alerts", () => Promise.reject(new Error("gone\u202e\u2028"))]], { limitMs: 5_000 });
    } finally {
      spy.mockRestore();
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/[\n\u202e\u2028]/u);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: "error",
      event: "exit_work_failed",
      task: "alerts",
      message: expect.stringMatching(/^Error: gone\u202e\u2028\n\s+at /),
    });
  });
});
