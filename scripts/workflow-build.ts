import { writeFileSync } from "node:fs";
import path from "node:path";
import { serialised, workflowFile } from "../workflows/n8n/build";

// `npm run workflow:build`: writes the n8n workflows an operator imports (docs/sms-workflow.md).
writeFileSync(workflowFile, serialised());
console.log(`Wrote ${path.relative(process.cwd(), workflowFile)}`);
