import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import type { ContactValues } from "../../lib/forms/contact";
import { helpWords, optInWords, optOutWords, smsTexts, supportEmailSlot } from "../../lib/sms/program";

/**
 * Builds workflows/n8n/sms-program.json and editor/*.json (one workflow each) from the Code nodes' sources and
 * lib/sms/program.ts. `npm run workflow:build` writes them; a test fails while the committed files differ.
 */

const here = path.resolve("workflows", "n8n");
export const workflowFile = path.join(here, "sms-program.json");

export const workflowIds = {
  welcome: "sousWelcomeText1",
  incoming: "sousIncomingSms1",
  contact: "sousContactChat1",
  invitations: "sousInvitations1",
} as const;
export const webhookPaths = {
  welcome: "sous-waitlist",
  incoming: "sous-sms-inbound",
  contact: "sous-contact",
  invitations: "sous-invitation",
} as const;

/** The chat message's line for each field of the contact form, in the form's order: a new field fails the type check here. */
const contactChatLabels = {
  name: "Name",
  email: "Email",
  phone: "Phone",
  clientCount: "Clients",
  currentTools: "Tools",
  message: "Biggest business challenge",
} satisfies Record<keyof ContactValues, string>;

const program = {
  welcome: smsTexts.welcome,
  help: smsTexts.help(supportEmailSlot),
  supportEmailSlot,
  optOutWords,
  optInWords,
  helpWords,
  inboundPath: webhookPaths.incoming,
  contact: { title: "New quote request from the website", fields: Object.entries(contactChatLabels) },
};

type CodeName = "welcome" | "invite" | "inbound" | "record" | "report" | "contact";

const source = (name: string) => readFileSync(path.join(here, "code", `${name}.js`), "utf8");

/** Code without its comments: what it names, not what its prose mentions. */
const withoutComments = (code: string) => code.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/[^\n]*/g, "");
const namesIn = (code: string) => new Set(withoutComments(code).match(/[A-Za-z_$][\w$]*/g));

/**
 * shared.js read as the pieces a node may need: its opening comment, and each top-level declaration with the comment
 * above it, in the file's order.
 */
function sharedPieces() {
  const text = source("shared");
  const file = ts.createSourceFile("shared.js", text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const opening = text.slice(0, file.statements[0]!.getStart(file)).trim();
  const pieces = file.statements.map((statement, index) => ({
    names: ts.isFunctionDeclaration(statement)
      ? [statement.name!.text]
      : ts.isVariableStatement(statement)
        ? statement.declarationList.declarations.map((declaration) => declaration.name.getText(file))
        : [],
    text: text.slice(index === 0 ? statement.getStart(file) : statement.getFullStart(), statement.getEnd()).trim(),
  }));
  return { opening, pieces };
}

/** The helpers of shared.js that `code` calls, and those they call in turn, in the file's order. */
export function helpersFor(code: string) {
  const { opening, pieces } = sharedPieces();
  const needed = new Set<(typeof pieces)[number]>();
  const unread = [code];
  while (unread.length) {
    const names = namesIn(unread.pop()!);
    for (const piece of pieces)
      if (!needed.has(piece) && piece.names.some((name) => names.has(name))) {
        needed.add(piece);
        unread.push(piece.text);
      }
  }
  return { opening, helpers: pieces.filter((piece) => needed.has(piece)) };
}

/**
 * A Code node's JavaScript: the program's words (when it reads them), the helpers of shared.js it calls and no others,
 * the node's own code, and the call that runs it.
 */
export function codeOf(name: CodeName, call: string) {
  const own = source(name);
  const { opening, helpers } = helpersFor(`${own}\n${call}`);
  const readsProgram = [own, ...helpers.map((helper) => helper.text)].some((code) => namesIn(code).has("PROGRAM"));
  return [
    ...(readsProgram ? [`const PROGRAM = ${JSON.stringify(program, null, 2)};`] : []),
    [opening, ...helpers.map((helper) => helper.text)].join("\n\n"),
    own,
    call,
    "",
  ].join("\n");
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
    // A node that throws before a Respond node would have n8n answer 200 with an empty body: its error goes to a branch
    // that answers 500 and fails the execution instead.
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

/** Routes an item by `$json.retry`: true to output 0, anything else to output 1. */
function retrying(workflow: string, name: string, position: number[]): Node {
  return {
    id: idOf(workflow, name),
    name,
    type: "n8n-nodes-base.if",
    typeVersion: 2,
    position,
    parameters: {
      conditions: {
        options: { caseSensitive: true, leftValue: "", typeValidation: "strict" },
        conditions: [
          {
            id: idOf(workflow, name, "condition"),
            leftValue: "={{ $json.retry === true }}",
            rightValue: "",
            operator: { type: "boolean", operation: "true", singleValue: true },
          },
        ],
        combinator: "and",
      },
      options: {},
    },
  };
}

/**
 * Waits `$json.waitSeconds`, then passes the item on: n8n's own wait, which keeps anything over 65 s in its database
 * (it survives a restart) and is no Code node task, so no task time limit applies.
 */
function wait(workflow: string, name: string, position: number[]): Node {
  return {
    id: idOf(workflow, name),
    name,
    type: "n8n-nodes-base.wait",
    typeVersion: 1.1,
    position,
    webhookId: idOf(workflow, name, "webhook"),
    parameters: { resume: "timeInterval", amount: "={{ $json.waitSeconds }}", unit: "seconds" },
  };
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
 * A webhook workflow of the shape all four share: the webhook, a Code node that decides the answer, the Respond node
 * that sends it, then what runs after the caller has its answer; any error of the deciding node answers 500 and fails
 * the execution.
 */
function answeringWorkflow(spec: {
  id: string;
  name: string;
  trigger: string;
  path: string;
  decide: { name: string; code: CodeName };
  answer: string;
  after?: { nodes: Node[]; connections: Record<string, unknown>; first: string[] };
}) {
  const { id, decide, answer, after } = spec;
  const nodes = [
    webhook(id, spec.trigger, spec.path),
    code(id, decide.name, codeOf(decide.code, "return [{ json: await main(this.helpers) }];"), at(220, 0), true),
    respond(id, answer, at(440, -100)),
    ...(after?.nodes ?? []),
    ...failure(id, at(440, 100)),
  ];
  const connections = {
    [spec.trigger]: { main: [to(decide.name)] },
    [decide.name]: { main: [to(answer), to("Answer 500")] },
    ...(after ? { [answer]: { main: [after.first.flatMap(to)] } } : {}),
    ...after?.connections,
    "Answer 500": { main: [to("Fail the execution")] },
  };
  return workflow(id, spec.name, nodes, connections);
}

/**
 * What follows Twilio's answer: a STOP or a START is recorded at the site, one attempt per run of "Record STOP or
 * START", with n8n's Wait node between attempts (no Code node task sleeps); a setting that drops messages is reported.
 */
function afterIncoming(id: string) {
  const record = "Record STOP or START";
  const again = "Retry later?";
  const pause = "Wait before retrying";
  const report = "Report a wrong setting";
  const after = (name: CodeName) => codeOf(name, "return await main(this.helpers);");
  return {
    first: [record, report],
    nodes: [
      code(id, record, after("record"), at(660, -200), false),
      retrying(id, again, at(880, -200)),
      wait(id, pause, at(1100, -200)),
      code(id, report, after("report"), at(660, 0), false),
    ],
    connections: {
      [record]: { main: [to(again)] },
      [again]: { main: [to(pause), []] },
      [pause]: { main: [to(record)] },
    },
  };
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
      after: afterIncoming(workflowIds.incoming),
    }),
    answeringWorkflow({
      id: workflowIds.invitations,
      name: "Sous: invitations",
      trigger: "Sous invitation",
      path: webhookPaths.invitations,
      decide: { name: "Verify and invite", code: "invite" },
      answer: "Answer the site",
    }),
    answeringWorkflow({
      id: workflowIds.contact,
      name: "Sous: contact requests",
      trigger: "Sous contact request",
      path: webhookPaths.contact,
      decide: { name: "Verify and post", code: "contact" },
      answer: "Answer the site",
    }),
  ];
}

export const serialised = () => `${JSON.stringify(buildSmsProgram(), null, 2)}\n`;

type WorkflowKey = keyof typeof workflowIds;

/**
 * Each workflow also in a file of its own, which n8n's editor imports (_Import from File_ takes one workflow, not the
 * array of sms-program.json): workflows/n8n/editor/<key>.json, the same workflow as in sms-program.json.
 */
export const editorFiles = Object.fromEntries(
  Object.keys(workflowIds).map((key) => [key, path.join(here, "editor", `${key}.json`)]),
) as Record<WorkflowKey, string>;

/** One workflow as its editor file holds it. */
export function serialisedOne(key: WorkflowKey) {
  const workflow = buildSmsProgram().find((candidate) => candidate.id === workflowIds[key]);
  if (!workflow) throw new Error(`no workflow ${key}`);
  return `${JSON.stringify(workflow, null, 2)}\n`;
}
