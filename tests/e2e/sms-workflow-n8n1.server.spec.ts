import { n8nLines } from "../support/n8n-server";
import { test } from "./fixtures";
import { smsProgramBrowser, smsProgramSpecs } from "./sms-program";

// The SMS program on the older line of n8n, which operators still run.
test.use(smsProgramBrowser);
test.describe(n8nLines.older.label, () => smsProgramSpecs(n8nLines.older));
