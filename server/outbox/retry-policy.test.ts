import { describe, expect, it, vi } from "vitest";
import { backoffMs, isTransient } from "./retry-policy";

describe("isTransient", () => {
  it("retries what the receiver may answer differently next time", () => {
    for (const status of [408, 429, 500, 502, 503, 504]) {
      expect(isTransient({ ok: false, reason: "status", status }), String(status)).toBe(true);
    }
    expect(isTransient({ ok: false, reason: "timeout" })).toBe(true);
    expect(isTransient({ ok: false, reason: "network" })).toBe(true);
    expect(isTransient({ ok: false, reason: "unready", status: 200 })).toBe(true);
  });

  it("does not retry a success, a refusal that will not change, or a redirect", () => {
    expect(isTransient({ ok: true, status: 200 })).toBe(false);
    expect(isTransient({ ok: true, status: 500 })).toBe(false);
    for (const status of [400, 401, 403, 404, 410, 422, 499]) {
      expect(isTransient({ ok: false, reason: "status", status }), String(status)).toBe(false);
    }
    expect(isTransient({ ok: false, reason: "redirect", status: 503 })).toBe(false);
  });
});

describe("backoffMs", () => {
  it("doubles a ceiling per retry and waits between half of it and all of it", () => {
    const random = vi.spyOn(Math, "random").mockReturnValue(0);
    expect([1, 2, 3].map((retry) => backoffMs(retry, 300))).toStrictEqual([150, 300, 600]);
    random.mockReturnValue(1);
    expect([1, 2, 3].map((retry) => backoffMs(retry, 300))).toStrictEqual([300, 600, 1200]);
    random.mockReturnValue(0.5);
    expect(backoffMs(2, 300)).toBe(450);
  });
});
