import { randomBytes } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { closeDatabases } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { databaseLine } from "./database-line";
import { safeSinks } from "./safe-output";

type Command = (args: string[], print: (line: string) => void, write: (text: string) => void) => Promise<unknown>;

/**
 * `--output FILE` (or `--output=FILE`), taken out of the arguments before the command reads them: what the command
 * would print to stdout goes to FILE instead. `npm run` writes its own banner to stdout, so `> FILE` starts with three
 * lines that are not the export.
 */
export function outputOption(args: readonly string[]): { args: string[]; output?: string } {
  const rest: string[] = [];
  let output: string | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === "--") {
      rest.push(...args.slice(index));
      break;
    }
    if (arg === "--output" || arg.startsWith("--output=")) {
      const value = arg === "--output" ? args[(index += 1)] : arg.slice("--output=".length);
      if (!value || value.startsWith("-")) throw new Error("--output needs a file name: --output FILE");
      output = value;
    } else rest.push(arg);
  }
  return output === undefined ? { args: rest } : { args: rest, output };
}

/**
 * Writes the whole text to `file` or nothing: a file of its own beside it, readable by the operator only (mode 600: an
 * export holds numbers and consent evidence), renamed over the target once complete.
 */
export async function writeWhole(file: string, text: string) {
  const partial = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.partial`);
  try {
    await writeFile(partial, text, { mode: 0o600, flag: "wx" });
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

/**
 * Says on stderr which database it reads, closes them after, and exits 1 with the message on failure.
 * With `--output FILE`, the output goes to FILE once the command succeeded; a reader that stopped (`| head`) ends it.
 */
export function runCommand(
  command: Command,
  beforeClose: () => Promise<unknown> = async () => {},
  argv: readonly string[] = process.argv.slice(2),
) {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
  try {
    console.error(databaseLine(readEnv()));
  } catch {
    // A bad setting: the command says which, below.
  }
  const kept: string[] = [];
  return Promise.resolve()
    .then(async () => {
      const { args, output } = outputOption(argv);
      const print =
        output === undefined ? (line: string) => console.log(line) : (line: string) => kept.push(`${line}\n`);
      const write =
        output === undefined ? (text: string) => process.stdout.write(text) : (text: string) => kept.push(text);
      const done = await command(args, print, write);
      // What an export left out, and why: beside the file, never in it.
      if (typeof done === "object" && done !== null && "note" in done)
        safeSinks(console.error, () => {}).print(String(done.note));
      if (output === undefined) return;
      const text = kept.join("");
      await writeWhole(output, text);
      safeSinks(console.error, () => {}).print(`Wrote ${Buffer.byteLength(text)} bytes to ${output}`);
    })
    .catch((error: unknown) => {
      // A refusal may quote what the operator gave it (a phones file's line): escaped like every other sink.
      safeSinks(console.error, () => {}).print(error instanceof Error ? error.message : String(error));
      process.exitCode = 1;
    })
    .finally(async () => {
      await beforeClose();
      await closeDatabases();
    });
}
