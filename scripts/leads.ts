/** `npm run leads`: see scripts/leads-command.ts, and docs/operating.md, "Where leads live". */
import { closeDatabases } from "@/server/db/connect";
import { alertsSettled } from "@/server/delivery/alerts";
import { leadsCommand } from "./leads-command";

leadsCommand(
  process.argv.slice(2),
  (line) => console.log(line),
  (text) => process.stdout.write(text),
)
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  })
  // A retry's recovery alert goes out before the command ends.
  .finally(async () => {
    await alertsSettled();
    await closeDatabases();
  });
