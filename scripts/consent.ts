/** `npm run consent`: see scripts/consent-command.ts, and docs/operating.md, "SMS consent". */
import "./load-env";
import { consentCommand } from "./consent-command";
import { runCommand } from "./run-command";

void runCommand(consentCommand);
