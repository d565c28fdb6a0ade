import { closeDatabases } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { databaseLine } from "./database-line";
import { safeSinks } from "./safe-output";

type Command = (args: string[], print: (line: string) => void, write: (text: string) => void) => Promise<unknown>;

/**
 * Runs an operator command on this process's arguments: first, on stderr,
 * which database it reads; its message and exit code 1 on failure; the
 * databases closed after. Output cut short by a reader that stopped
 * (`| head`) ends the command quietly.
 */
export function runCommand(command: Command, beforeClose: () => Promise<unknown> = async () => {}) {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
  try {
    console.error(databaseLine(readEnv()));
  } catch {
    // A bad setting: the command says which, below.
  }
  return command(
    process.argv.slice(2),
    (line) => console.log(line),
    (text) => process.stdout.write(text),
  )
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
