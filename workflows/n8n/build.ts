import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { helpWords, optInWords, optOutWords, smsTexts, supportEmailSlot } from "../../lib/sms/program";

/**
 * Builds workflows/n8n/sms-program.json, the n8n workflows an operator
 * imports, from the Code nodes' sources in workflows/n8n/code and the words
 * and texts of lib/sms/program.ts. `npm run workflow:build` writes it; a test
 * fails while the committed file differs from what this builds. Paths are
 * from the project's root, where npm runs every script and test.
 */

const here = path.resolve("workflows", "n8n");
export const workflowFile = path.join(here, "sms-program.json");

export const workflowIds = { welcome: "sousWelcomeText1", incoming: "sousIncomingSms1" } as const;
export const webhookPaths = { welcome: "sous-waitlist", incoming: "sous-sms-inbound" } as const;

const program = {
  welcome: smsTexts.welcome,
  help: smsTexts.help(supportEmailSlot),
  supportEmailSlot,
  optOutWords,
  optInWords,
  helpWords,
};

const source = (name: string) => readFileSync(path.join(here, "code", `${name}.js`), "utf8");

/** A Code node's JavaScript: the program's words, the shared helpers, the node's own code, and the call that runs it. */
export function codeOf(name: "welcome" | "inbound" | "revoke", call: string) {
  return [`const PROGRAM = ${JSON.stringify(program, null, 2)};`, source("shared"), source(name), call, ""].join("\n");
}

/** A fixed UUID-shaped id, the same at every build, so a re-import updates the nodes it made. */
function idOf(...parts: string[]) {
  const hex = createHash("sha256").update(parts.join("/")).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

type Node = Record<string, unknown> & { name: string };

const at = (x: number, y: number) => [x, y];

function webhook(workflow: string, name: string, webhookPath: string): Node {
  return {
    id: idOf(workflow, name),
    name,
    type: "n8n-nodes-base.webhook",
    typeVersion: 2,
    position: at(0, 0),
    webhookId: idOf(workflow, name, "webhook"),
    // Raw Body keeps the exact bytes, which every signature covers; the answer comes from a Respond node.
    parameters: { httpMethod: "POST", path: webhookPath, responseMode: "responseNode", options: { rawBody: true } },
  };
}

function code(workflow: string, name: string, jsCode: string, position: number[], answersOnError: boolean): Node {
  return {
    id: idOf(workflow, name),
    name,
    type: "n8n-nodes-base.code",
    typeVersion: 2,
    position,
    parameters: { mode: "runOnceForAllItems", language: "javaScript", jsCode },
    // A node that throws before a Respond node would have n8n answer 200 with an empty body:
    // its error goes to a branch that answers 500 and fails the execution instead.
    ...(answersOnError ? { onError: "continueErrorOutput" } : {}),
  };
}

/** Answers what the Code node before it decided: its status, body and content type. */
function respond(workflow: string, name: string, position: number[]): Node {
  return {
    id: idOf(workflow, name),
    name,
    type: "n8n-nodes-base.respondToWebhook",
    typeVersion: 1.1,
    position,
    parameters: {
      respondWith: "text",
      responseBody: "={{ $json.responseBody }}",
      options: {
        responseCode: "={{ $json.status }}",
        responseHeaders: {
          entries: [
            { name: "content-type", value: "={{ $json.contentType }}" },
            { name: "cache-control", value: "no-store" },
          ],
        },
      },
    },
  };
}

/** The error branch: 500 to the caller, then a failed execution the operator sees in n8n's list. */
function failure(workflow: string, position: number[]): Node[] {
  return [
    {
      id: idOf(workflow, "Answer 500"),
      name: "Answer 500",
      type: "n8n-nodes-base.respondToWebhook",
      typeVersion: 1.1,
      position,
      parameters: { respondWith: "text", responseBody: "Internal Server Error", options: { responseCode: 500 } },
    },
    {
      id: idOf(workflow, "Fail the execution"),
      name: "Fail the execution",
      type: "n8n-nodes-base.stopAndError",
      typeVersion: 1,
      position: [position[0]! + 220, position[1]!],
      parameters: { errorMessage: "={{ 'The workflow failed: ' + ($json.error ?? 'unknown error') }}" },
    },
  ];
}

const to = (node: string) => [{ node, type: "main", index: 0 }];

function workflow(id: string, name: string, nodes: Node[], connections: Record<string, unknown>) {
  const body = { name, nodes, connections };
  return {
    id,
    ...body,
    active: false,
    settings: { executionOrder: "v1" },
    pinData: {},
    versionId: idOf(JSON.stringify(body)),
    meta: { templateCredsSetupCompleted: true },
    tags: [],
  };
}

export function buildSmsProgram() {
  const welcome = workflowIds.welcome;
  const incoming = workflowIds.incoming;
  return [
    workflow(
      welcome,
      "Sous: welcome text",
      [
        webhook(welcome, "Sous sign-up", webhookPaths.welcome),
        code(welcome, "Verify and text", codeOf("welcome", "return [{ json: await main(this.helpers) }];"), at(220, 0), true),
        respond(welcome, "Answer the site", at(440, -100)),
        ...failure(welcome, at(440, 100)),
      ],
      {
        "Sous sign-up": { main: [to("Verify and text")] },
        "Verify and text": { main: [to("Answer the site"), to("Answer 500")] },
        "Answer 500": { main: [to("Fail the execution")] },
      },
    ),
    workflow(
      incoming,
      "Sous: incoming texts",
      [
        webhook(incoming, "Twilio message", webhookPaths.incoming),
        code(incoming, "Read the message", codeOf("inbound", "return [{ json: await main(this.helpers) }];"), at(220, 0), true),
        respond(incoming, "Answer Twilio", at(440, -100)),
        code(incoming, "Record the STOP", codeOf("revoke", "return await main(this.helpers);"), at(660, -100), false),
        ...failure(incoming, at(440, 100)),
      ],
      {
        "Twilio message": { main: [to("Read the message")] },
        "Read the message": { main: [to("Answer Twilio"), to("Answer 500")] },
        "Answer Twilio": { main: [to("Record the STOP")] },
        "Answer 500": { main: [to("Fail the execution")] },
      },
    ),
  ];
}

export const serialised = () => `${JSON.stringify(buildSmsProgram(), null, 2)}\n`;
