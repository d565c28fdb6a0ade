/** `npm run consent`: see scripts/consent-command.ts, and docs/operating.md, "SMS consent". */
import { closeDatabases } from "@/server/db/connect";
import { consentCommand } from "./consent-command";

consentCommand(
  process.argv.slice(2),
  (line) => console.log(line),
  (text) => process.stdout.write(text),
)
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  })
  .finally(closeDatabases);
