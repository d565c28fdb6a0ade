import { n8nLines } from "../support/n8n-server";
import { test } from "./fixtures";
import { serverSpecBrowser } from "./e2e-env";
import { smsProgramSpecs } from "./sms-program";

// The SMS program on today's n8n, the line a new operator installs: an outage of n8n and the launch (its texts and
// replies run beside it, in sms-workflow-n8n2-texts.server.spec.ts).
test.use(serverSpecBrowser);
test.describe(n8nLines.current.label, () => smsProgramSpecs(n8nLines.current, "launch"));
