import { n8nLines } from "../support/n8n-server";
import { test } from "./fixtures";
import { smsProgramBrowser, smsProgramSpecs } from "./sms-program";

// The SMS program on today's n8n, the line a new operator installs.
test.use(smsProgramBrowser);
test.describe(n8nLines.current.label, () => smsProgramSpecs(n8nLines.current));
