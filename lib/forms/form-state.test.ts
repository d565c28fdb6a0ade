import { describe, expect, it } from "vitest";
import { idleState } from "./form-state";

describe("idleState", () => {
  it("is the state before any answer: no id (so no toast), the given values, no errors", () => {
    const values = { name: "", consent: false };
    expect(idleState(values)).toStrictEqual({ status: "idle", id: "", values, errors: {} });
  });
});
