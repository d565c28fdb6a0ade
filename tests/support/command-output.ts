/** An operator command's shape (scripts/run-command.ts): its arguments, then where its lines and its export go. */
type Command = (args: string[], print: (line: string) => void, write: (text: string) => void) => Promise<unknown>;

/**
 * Runs an operator command in process, on the test file's database: what it
 * printed, or its error as the command would exit with it (code 1, the
 * message on stderr).
 */
export async function commandOutput(run: Command, args: string[]) {
  let stdout = "";
  try {
    await run(
      args,
      (line) => (stdout += `${line}\n`),
      (text) => (stdout += text),
    );
  } catch (error) {
    return { code: 1, stdout, stderr: error instanceof Error ? error.message : String(error) };
  }
  return { code: 0, stdout, stderr: "" };
}
