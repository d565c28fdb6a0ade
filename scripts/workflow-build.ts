import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { editorFiles, serialised, serialisedOne, workflowFile } from "../workflows/n8n/build";

// `npm run workflow:build`: writes the n8n workflows an operator imports (docs/sms-workflow.md):
// all four in one file for the command line, and each in its own for the editor.
writeFileSync(workflowFile, serialised());
console.log(`Wrote ${path.relative(process.cwd(), workflowFile)}`);
for (const [key, file] of Object.entries(editorFiles)) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, serialisedOne(key as keyof typeof editorFiles));
  console.log(`Wrote ${path.relative(process.cwd(), file)}`);
}
