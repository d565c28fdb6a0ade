/** `npm run invite`: see scripts/invite-command.ts, and docs/operating.md, "Inviting the waitlist". */
import "./load-env";
import { inviteCommand } from "./invite-command";
import { runCommand } from "./run-command";

void runCommand(inviteCommand);
