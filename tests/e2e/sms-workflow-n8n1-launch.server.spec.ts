import { n8nLines } from "../support/n8n-server";
import { test } from "./fixtures";
import { serverSpecBrowser } from "./e2e-env";
import { smsProgramSpecs } from "./sms-program";

// The SMS program on the older line of n8n, which operators still run: an outage of n8n and the launch (its texts
// and replies run beside it, in sms-workflow-n8n1-texts.server.spec.ts).
test.use(serverSpecBrowser);
test.describe(n8nLines.older.label, () => smsProgramSpecs(n8nLines.older, "launch"));
