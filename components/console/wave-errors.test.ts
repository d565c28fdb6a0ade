import { describe, expect, it } from "vitest";
import { waveErrorCodes, waveErrorOf } from "./wave-errors";

describe("a wave's refusal, in words", () => {
  it("says each code a send or a cancel refuses with, as a sentence", () => {
    expect([...waveErrorCodes].sort()).toStrictEqual(
      ["count", "exists", "long", "name", "plan", "unknown", "unset", "unsigned"].sort(),
    );
    for (const code of waveErrorCodes) expect(waveErrorOf(code), code).toMatch(/^[A-Z].+\.$/);
  });

  it("says nothing for another code, an object's own keys included", () => {
    for (const code of ["constructor", "toString", "__proto__", "", "COUNT", undefined, ["count"]])
      expect(waveErrorOf(code), String(code)).toBeUndefined();
  });
});
