import { n8nLines } from "../support/n8n-server";
import { test } from "./fixtures";
import { serverSpecBrowser } from "./e2e-env";
import { smsProgramSpecs } from "./sms-program";

// The SMS program on today's n8n, the line a new operator installs: the texts and replies (its launch part runs
// beside it, in sms-workflow-n8n2-launch.server.spec.ts).
test.use(serverSpecBrowser);
test.describe(n8nLines.current.label, () => smsProgramSpecs(n8nLines.current, "texts"));
