import { afterEach, describe, expect, it, vi } from "vitest";
import { runCommand } from "./run-command";

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

describe("runCommand", () => {
  it("prints a refusal with the operator's own text escaped: no terminal sequence, no bidi override", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    await runCommand(async () => {
      throw new Error("line 2 is not a number: \u001b]0;owned\u0007\u001b[2J\u202eevil");
    });
    const printed = error.mock.calls.map((call) => String(call[0])).at(-1)!;
    expect(printed).toBe("line 2 is not a number: \\u{001b}]0;owned\\u{0007}\\u{001b}[2J\\u{202e}evil");
    expect(process.exitCode).toBe(1);
  });

  it("prints a plain refusal as it is", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    await runCommand(async () => {
      throw new Error("Unknown wave: launch-9");
    });
    expect(error.mock.calls.map((call) => String(call[0])).at(-1)).toBe("Unknown wave: launch-9");
    expect(process.exitCode).toBe(1);
  });
});
