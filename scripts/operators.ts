/** `npm run operators`: see scripts/operators-command.ts, and docs/operating.md, "The console". */
import "./load-env";
import { operatorsCommand } from "./operators-command";
import { runCommand } from "./run-command";

void runCommand(operatorsCommand);
