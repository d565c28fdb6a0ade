import { closeDatabases } from "@/server/db/connect";

type Command = (args: string[], print: (line: string) => void, write: (text: string) => void) => Promise<unknown>;

/** Runs an operator command on this process's arguments: its message and exit code 1 on failure, the databases closed after. */
export function runCommand(command: Command, beforeClose: () => Promise<unknown> = async () => {}) {
  return command(
    process.argv.slice(2),
    (line) => console.log(line),
    (text) => process.stdout.write(text),
  )
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exitCode = 1;
    })
    .finally(async () => {
      await beforeClose();
      await closeDatabases();
    });
}
