import { describe, expect, it, vi } from "vitest";
import { processWide } from "./process-wide";

describe("processWide", () => {
  it("makes a name's value once, with the first caller's initial, and gives every later caller that value", () => {
    const name = `test-${crypto.randomUUID()}`;
    const first = vi.fn(() => ({ count: 0 }));
    const later = vi.fn(() => ({ count: 99 }));

    const value = processWide(name, first);
    expect(value).toEqual({ count: 0 });
    value.count += 1;

    expect(processWide(name, later)).toBe(value);
    expect(processWide(name, later)).toEqual({ count: 1 });
    expect(first).toHaveBeenCalledTimes(1);
    expect(later).not.toHaveBeenCalled();
  });

  it("keeps each name's value apart", () => {
    const a = processWide(`test-${crypto.randomUUID()}`, () => "a");
    const b = processWide(`test-${crypto.randomUUID()}`, () => "b");
    expect([a, b]).toEqual(["a", "b"]);
  });

  it("is the same value for a second copy of the module, as another of Next's bundles would load it", async () => {
    const name = `test-${crypto.randomUUID()}`;
    const value = processWide(name, () => new Set<string>());
    vi.resetModules();
    const copy = await import("./process-wide");
    expect(copy.processWide).not.toBe(processWide);
    expect(copy.processWide(name, () => new Set<string>())).toBe(value);
  });
});
