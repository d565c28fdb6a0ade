import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The paste-ready verification Code node of docs/webhooks.md ("Verifying in
 * n8n"), taken from the document as an operator copies it, and a workflow
 * that uses it the way the document says: a Webhook node with Raw Body on,
 * answering when the last node finishes, then the Code node.
 */

export const docWorkflow = { id: "sousDocVerify01", path: "sous-doc-verify" } as const;

/** The first `js` block under the section's heading. */
export function verificationBlock(markdown = readFileSync(path.join("docs", "webhooks.md"), "utf8")) {
  const section = markdown.split(/^## Verifying in n8n$/m)[1]?.split(/^## /m)[0] ?? "";
  const block = section.match(/```js\n([\s\S]*?)\n```/)?.[1];
  if (!block) throw new Error("docs/webhooks.md has no js block under “Verifying in n8n”");
  return block;
}

/** Writes the workflow to `file`, ready for `n8n import:workflow`. */
export function writeDocWorkflow(file: string, jsCode = verificationBlock()) {
  const workflow = {
    id: docWorkflow.id,
    name: "Operator's own: verify the site's signature",
    active: false,
    settings: { executionOrder: "v1" },
    connections: { Webhook: { main: [[{ node: "Verify the site's signature", type: "main", index: 0 }]] } },
    nodes: [
      {
        id: "6f1c1d3e-2a4b-4c5d-8e6f-7a8b9c0d1e2f",
        name: "Webhook",
        type: "n8n-nodes-base.webhook",
        typeVersion: 2,
        position: [0, 0],
        webhookId: "0b9d8c7e-6f5a-4b3c-9d2e-1f0a9b8c7d6e",
        parameters: {
          httpMethod: "POST",
          path: docWorkflow.path,
          responseMode: "lastNode",
          options: { rawBody: true },
        },
      },
      {
        id: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
        name: "Verify the site's signature",
        type: "n8n-nodes-base.code",
        typeVersion: 2,
        position: [220, 0],
        parameters: { mode: "runOnceForAllItems", language: "javaScript", jsCode },
      },
    ],
    pinData: {},
    tags: [],
  };
  writeFileSync(file, JSON.stringify([workflow], null, 2));
  return file;
}
