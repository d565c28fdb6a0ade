import { n8nLines } from "../support/n8n-server";
import { test } from "./fixtures";
import { serverSpecBrowser } from "./e2e-env";
import { smsProgramSpecs } from "./sms-program";

// The SMS program on the older line of n8n, which operators still run: the texts and replies (its launch part runs
// beside it, in sms-workflow-n8n1-launch.server.spec.ts).
test.use(serverSpecBrowser);
test.describe(n8nLines.older.label, () => smsProgramSpecs(n8nLines.older, "texts"));
