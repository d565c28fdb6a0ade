/** `npm run sms:test`: see scripts/sms-test-command.ts, and docs/sms-workflow.md, "Send a test STOP". */
import "./load-env";
import { escapeControls } from "@/server/escape-controls.mjs";
import { smsTestCommand } from "./sms-test-command";

smsTestCommand(process.argv.slice(2), process.env, (line) => console.log(line)).catch((error: unknown) => {
  console.error(escapeControls(error instanceof Error ? error.message : String(error), "\n"));
  process.exitCode = 1;
});
