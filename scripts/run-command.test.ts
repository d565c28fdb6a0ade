import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { outputOption, runCommand } from "./run-command";

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

describe("outputOption", () => {
  it("takes --output FILE and --output=FILE out of the arguments, wherever they stand", () => {
    expect(outputOption(["export", "--output", "a.csv", "--format", "csv"])).toStrictEqual({
      args: ["export", "--format", "csv"],
      output: "a.csv",
    });
    expect(outputOption(["status", "--json", "--output=s.json"])).toStrictEqual({
      args: ["status", "--json"],
      output: "s.json",
    });
    expect(outputOption(["list"])).toStrictEqual({ args: ["list"] });
    // After "--" every argument is the command's own.
    expect(outputOption(["show", "--", "--output", "x"])).toStrictEqual({ args: ["show", "--", "--output", "x"] });
  });

  it("refuses --output without a file name", () => {
    for (const args of [
      ["export", "--output"],
      ["export", "--output", "--json"],
      ["export", "--output="],
    ])
      expect(() => outputOption(args), args.join(" ")).toThrow("--output needs a file name: --output FILE");
  });
});

describe("runCommand --output", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "sous-output-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes what the command prints and writes to the file, mode 600, nothing to stdout, and says where on stderr", async () => {
    const file = path.join(dir, "export.csv");
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    let seen: string[] = [];
    await runCommand(
      async (args, print, write) => {
        seen = args;
        write("phone,state\r\n");
        print("+14155550142,in force");
      },
      undefined,
      ["export", "--output", file, "--format", "csv"],
    );
    expect(seen).toStrictEqual(["export", "--format", "csv"]);
    expect(readFileSync(file, "utf8")).toBe("phone,state\r\n+14155550142,in force\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(stdout).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
    expect(error.mock.calls.map((call) => String(call[0])).at(-1)).toBe(`Wrote 35 bytes to ${file}`);
    expect(process.exitCode).toBeUndefined();
    // Its working twin: without --output the same command prints to stdout.
    await runCommand(async (_args, print) => print("to stdout"), undefined, ["export"]);
    expect(log).toHaveBeenCalledWith("to stdout");
  });

  it("leaves the file as it was, and no partial file beside it, when the command fails", async () => {
    const file = path.join(dir, "kept.json");
    writeFileSync(file, '{"before":true}');
    vi.spyOn(console, "error").mockImplementation(() => {});
    await runCommand(
      async (_args, print) => {
        print('{"half":');
        throw new Error("the database is down");
      },
      undefined,
      ["status", "--json", `--output=${file}`],
    );
    expect(process.exitCode).toBe(1);
    expect(readFileSync(file, "utf8")).toBe('{"before":true}');
    expect(readdirSync(dir).filter((name) => name.includes("kept.json"))).toStrictEqual(["kept.json"]);
  });

  it("refuses a folder that does not exist, writing nothing", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    await runCommand(async (_args, print) => print("x"), undefined, [
      "export",
      "--output",
      path.join(dir, "no", "f.csv"),
    ]);
    expect(process.exitCode).toBe(1);
    expect(String(error.mock.calls.at(-1)?.[0])).toContain("ENOENT");
  });
});
