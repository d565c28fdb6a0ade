import { describe, expect, it } from "vitest";
import { jsonFrameworkLogs } from "./framework-log.mjs";

/** A console whose lines are kept: what each method wrote. */
function keptConsole() {
  const lines: Array<[string, string]> = [];
  const keep =
    (method: string) =>
    (...args: unknown[]) =>
      void lines.push([method, String(args.join(" "))]);
  return { lines, target: { error: keep("error"), warn: keep("warn"), info: keep("info"), log: keep("log") } };
}

describe("jsonFrameworkLogs", () => {
  it("writes Next's own lines as one JSON event each, an error's stack inside, at the method's level", () => {
    const { lines, target } = keptConsole();
    jsonFrameworkLogs(target);
    const error = new Error('Failed to find Server Action "x"');
    target.error(" ⨯", error);
    target.warn("a %s warning", "formatted");
    target.log("▲ Next.js\nready");
    expect(lines.map(([method]) => method)).toStrictEqual(["error", "warn", "log"]);
    for (const [, line] of lines) expect(line.split("\n")).toHaveLength(1);
    const [failed, warned, logged] = lines.map(([, line]) => JSON.parse(line) as Record<string, string>);
    expect(failed).toMatchObject({ level: "error", event: "framework" });
    expect(failed!.message).toContain(' ⨯ Error: Failed to find Server Action "x"\n    at ');
    expect(failed!.time).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(warned).toMatchObject({ level: "warn", event: "framework", message: "a formatted warning" });
    expect(logged).toMatchObject({ level: "info", message: "▲ Next.js\nready" });
  });

  it("passes the site's own event lines through as they are, and escapes what it wraps", () => {
    const { lines, target } = keptConsole();
    jsonFrameworkLogs(target);
    const event = '{"time":"2026-11-28T00:00:00.000Z","level":"info","event":"started"}';
    target.info(event);
    target.error("path /\u202eevil\u001b[2J");
    expect(lines[0]).toStrictEqual(["info", event]);
    expect(lines[1]![1]).toContain("\\u202e");
    expect(lines[1]![1]).not.toMatch(/[\u202e\u001b]/);
    // Two arguments are never the site's own line, even when the first looks like one.
    target.info(event, "more");
    expect(JSON.parse(lines[2]![1])).toMatchObject({ event: "framework", message: `${event} more` });
  });

  it("wraps a lone value that is not text, and prints objects without terminal colours", () => {
    const { lines, target } = keptConsole();
    jsonFrameworkLogs(target);
    target.warn({ time: 1 });
    target.error("failed:", { status: 500 });
    expect(lines.map(([, line]) => JSON.parse(line).message)).toStrictEqual(["{ time: 1 }", "failed: { status: 500 }"]);
  });

  it("wraps a console once, however often it is installed (npm start, then instrumentation.ts), and drops colour codes", () => {
    const { lines, target } = keptConsole();
    jsonFrameworkLogs(target);
    const wrapped = target.log;
    jsonFrameworkLogs(target);
    // The second install leaves the first wrapper in place: no wrapper around a wrapper.
    expect(target.log).toBe(wrapped);
    target.log("\u001b[32m\u001b[1m✓\u001b[22m\u001b[39m Running next.config.ts took 35ms");
    expect(lines).toHaveLength(1);
    // Without the colour codes Next wrote around its words; any other escape stays, escaped.
    expect(JSON.parse(lines[0]![1])).toMatchObject({
      event: "framework",
      message: "✓ Running next.config.ts took 35ms",
    });
    target.error("\u001b[2J cleared");
    expect(JSON.parse(lines[1]![1])).toMatchObject({ message: "\u001b[2J cleared" });
  });
});
