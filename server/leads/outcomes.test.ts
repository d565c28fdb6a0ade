import { describe, expect, it, vi } from "vitest";
import { alertOnOutcomes, noteOutcome } from "@/server/alerts/alerts";
import type { Store } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { processWide } from "@/server/process-wide";
import { announceOutcome, listenToOutcomes, type OutcomeListener } from "./outcomes";

// The registry the module keeps process-wide, as every bundle sees it.
const listeners = processWide("outcomes", () => new Map<string, OutcomeListener>());
const store = {} as Store;

describe("delivery outcomes", () => {
  it("reach every listener, each registered once by its name however often it registers", () => {
    const saved = new Map(listeners);
    listeners.clear();
    try {
      const [first, second, replacement] = [vi.fn(), vi.fn(), vi.fn()];
      listenToOutcomes("first", first);
      listenToOutcomes("second", second);
      listenToOutcomes("second", replacement);
      announceOutcome(store, "waitlist", "dead", readEnv());
      expect(first).toHaveBeenCalledOnce();
      expect(first).toHaveBeenCalledWith(store, "waitlist", "dead", readEnv());
      expect(second).not.toHaveBeenCalled();
      expect(replacement).toHaveBeenCalledOnce();
    } finally {
      listeners.clear();
      for (const [name, listener] of saved) listeners.set(name, listener);
    }
  });

  it("are heard by the alerts once alertOnOutcomes ran, under the one name 'alerts'", () => {
    const saved = new Map(listeners);
    listeners.clear();
    try {
      alertOnOutcomes();
      alertOnOutcomes();
      expect([...listeners]).toStrictEqual([["alerts", noteOutcome]]);
    } finally {
      listeners.clear();
      for (const [name, listener] of saved) listeners.set(name, listener);
    }
  });
});
