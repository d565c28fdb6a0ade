/** An operator command's shape (scripts/run-command.ts): its arguments, then where its lines and its export go. */
type Command = (args: string[], print: (line: string) => void, write: (text: string) => void) => Promise<unknown>;

/**
 * Runs an operator command in process, on the test file's database: what it
 * printed, or its error as the command would exit with it (code 1, the
 * message on stderr).
 */
export async function commandOutput(run: Command, args: string[]) {
  let stdout = "";
  let done: unknown;
  try {
    done = await run(
      args,
      (line) => (stdout += `${line}\n`),
      (text) => (stdout += text),
    );
  } catch (error) {
    return { code: 1, stdout, stderr: error instanceof Error ? error.message : String(error) };
  }
  const note = typeof done === "object" && done !== null && "note" in done ? String(done.note) : "";
  return { code: 0, stdout, stderr: note };
}
