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

/**
 * A webhook workflow of the shape both share: the webhook, a Code node that
 * decides the answer, the Respond node that sends it, then an optional Code
 * node that runs after the caller has its answer; any error of the deciding
 * node answers 500 and fails the execution.
 */
function answeringWorkflow(spec: {
  id: string;
  name: string;
  trigger: string;
  path: string;
  decide: { name: string; code: "welcome" | "inbound" };
  answer: string;
  after?: { name: string; code: "revoke" };
}) {
  const { id, decide, answer, after } = spec;
  const nodes = [
    webhook(id, spec.trigger, spec.path),
    code(id, decide.name, codeOf(decide.code, "return [{ json: await main(this.helpers) }];"), at(220, 0), true),
    respond(id, answer, at(440, -100)),
    ...(after
      ? [code(id, after.name, codeOf(after.code, "return await main(this.helpers);"), at(660, -100), false)]
      : []),
    ...failure(id, at(440, 100)),
  ];
  const connections = {
    [spec.trigger]: { main: [to(decide.name)] },
    [decide.name]: { main: [to(answer), to("Answer 500")] },
    ...(after ? { [answer]: { main: [to(after.name)] } } : {}),
    "Answer 500": { main: [to("Fail the execution")] },
  };
  return workflow(id, spec.name, nodes, connections);
}

export function buildSmsProgram() {
  return [
    answeringWorkflow({
      id: workflowIds.welcome,
      name: "Sous: welcome text",
      trigger: "Sous sign-up",
      path: webhookPaths.welcome,
      decide: { name: "Verify and text", code: "welcome" },
      answer: "Answer the site",
    }),
    answeringWorkflow({
      id: workflowIds.incoming,
      name: "Sous: incoming texts",
      trigger: "Twilio message",
      path: webhookPaths.incoming,
      decide: { name: "Read the message", code: "inbound" },
      answer: "Answer Twilio",
      after: { name: "Record the STOP", code: "revoke" },
    }),
  ];
}

export const serialised = () => `${JSON.stringify(buildSmsProgram(), null, 2)}\n`;
