import { afterEach, describe, expect, it, vi } from "vitest";
import { logEvent } from "./log";

afterEach(() => vi.restoreAllMocks());

describe("logEvent", () => {
  it("writes one JSON line whose control and format characters are escapes, and reads back as sent", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const path = "/a\u202eb\u2066c\u009b31md\u001b[2Je\u200bf";
    logEvent("warn", { event: "not_found", path });
    const [line] = warn.mock.calls[0] as [string];
    expect(line).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect(line).toContain("\\u202e");
    expect(line).toContain("\\u009b");
    expect(JSON.parse(line)).toMatchObject({ level: "warn", event: "not_found", path });
  });

  it("leaves a line with nothing to escape as JSON.stringify writes it, on the level's stream", () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    logEvent("info", { event: "started", path: "/plain" });
    logEvent("error", { event: "failed" });
    expect(info.mock.calls[0]![0]).toMatch(/^\{"time":"[^"]+","level":"info","event":"started","path":"\/plain"\}$/);
    expect(JSON.parse(error.mock.calls[0]![0] as string)).toMatchObject({ level: "error", event: "failed" });
  });
});
