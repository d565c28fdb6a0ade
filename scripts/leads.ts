/** `npm run leads`: see scripts/leads-command.ts, and docs/operating.md, "Where leads live". */
import "./load-env";
import { alertsSettled } from "@/server/outbox/alerts";
import { leadsCommand } from "./leads-command";
import { runCommand } from "./run-command";

// A retry's recovery alert goes out before the command ends.
void runCommand(leadsCommand, alertsSettled);
