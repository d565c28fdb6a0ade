import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFilesUnder } from "@/tests/support/source-files";

/**
 * Every console page, action and download checks who is asking in its own
 * handler, first thing (decision 0015; middleware is never the gate): this
 * reads each handler under app/console and finds the first call it awaits.
 * Awaiting the route's own params before it is allowed (they read nothing);
 * anything else first, or no check at all, fails here, naming the file.
 */

/** The pages a browser without a session must reach: each checks its own door (a link, the setup token, a ceremony). */
const doors = new Map([
  ["app/console/sign-in/page.tsx", "signs in: it redirects an operator already signed in"],
  ["app/console/setup/page.tsx", "the first owner's setup: open only while setupOpen() says so"],
  ["app/console/enrol/[token]/page.tsx", "an enrolment link's page: the link's token is its check"],
  [
    "app/console/no-such-page/page.tsx",
    "the console's 404: the frame for an operator, a way to sign in for anyone else",
  ],
]);

/** What checks the operator: a page's, and an action's or a download's. */
const checks = { page: "requirePageOperator", route: "gate" } as const;
const methods = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

type Handler = { name: string; body: ts.Block | undefined };

/** The handlers a file exports: a page's default function, a route's HTTP methods. */
function handlersOf(file: string, source: ts.SourceFile): Handler[] {
  const handlers: Handler[] = [];
  for (const statement of source.statements) {
    if (!ts.isFunctionDeclaration(statement)) continue;
    const modifiers = ts.getModifiers(statement)?.map((modifier) => modifier.kind) ?? [];
    if (!modifiers.includes(ts.SyntaxKind.ExportKeyword)) continue;
    const name = statement.name?.text ?? "";
    if (file.endsWith("page.tsx") && modifiers.includes(ts.SyntaxKind.DefaultKeyword))
      handlers.push({ name: "default", body: statement.body });
    else if (file.endsWith("route.ts") && methods.has(name)) handlers.push({ name, body: statement.body });
  }
  return handlers;
}

/** The name of the first function a handler awaits (in source order), skipping `await params` and its kin. */
function firstAwaitedCall(body: ts.Node): string | undefined {
  let found: string | undefined;
  const visit = (node: ts.Node) => {
    if (found) return;
    if (ts.isAwaitExpression(node) && ts.isCallExpression(node.expression)) {
      found = node.expression.expression.getText();
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(body);
  return found;
}

function consoleHandlers() {
  return sourceFilesUnder("app/console")
    .filter((file) => /(^|\/)(page\.tsx|route\.ts)$/.test(file))
    .map((file) => {
      const text = readFileSync(file, "utf8");
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
      return { file: file.split(path.sep).join("/"), handlers: handlersOf(file, source) };
    });
}

/** What is wrong with a handler, if anything. */
function verdict(file: string, { name, body }: Handler) {
  const needed = file.endsWith("route.ts") ? checks.route : checks.page;
  const first = body ? firstAwaitedCall(body) : undefined;
  return first === needed ? "checked" : `${file} ${name}: awaits ${first ?? "nothing"} before ${needed}(...)`;
}

describe("the console's handlers", () => {
  const found = consoleHandlers();

  it("are found: every page and route under app/console, each with its handlers", () => {
    expect(found.length).toBeGreaterThanOrEqual(17);
    for (const { file, handlers } of found) expect(handlers.length, file).toBeGreaterThan(0);
    for (const door of doors.keys()) expect(found.map(({ file }) => file)).toContain(door);
  });

  it("each check the operator before anything else, but the doors a browser without a session opens", () => {
    const unchecked = found
      .filter(({ file }) => !doors.has(file))
      .flatMap(({ file, handlers }) => handlers.map((handler) => verdict(file, handler)))
      .filter((answer) => answer !== "checked");
    expect(unchecked).toStrictEqual([]);
  });

  it("tell a handler without its check, or with a read before it, from one with it", () => {
    const read = (text: string, file = "app/console/x/page.tsx") => {
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
      return handlersOf(file, source).map((handler) => verdict(file, handler));
    };
    expect(
      read(
        `export default async function P({ params }) { const { key } = await params; await requirePageOperator("/console"); }`,
      ),
    ).toStrictEqual(["checked"]);
    expect(
      read(
        `export default async function P() { const rows = await listAll(); await requirePageOperator("/console"); }`,
      ),
    ).toStrictEqual(["app/console/x/page.tsx default: awaits listAll before requirePageOperator(...)"]);
    expect(read(`export default async function P() { return null; }`)).toStrictEqual([
      "app/console/x/page.tsx default: awaits nothing before requirePageOperator(...)",
    ]);
    expect(
      read(
        `export async function POST(request) { const checked = await gate(request, {}); } export async function GET() { await download(); }`,
        "app/console/x/route.ts",
      ),
    ).toStrictEqual(["checked", "app/console/x/route.ts GET: awaits download before gate(...)"]);
    // A helper that is not a handler is not read.
    expect(read(`export async function helper() { await listAll(); }`)).toStrictEqual([]);
  });
});
