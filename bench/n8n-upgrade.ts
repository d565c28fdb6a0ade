/**
 * How long an upgrade of the shipped workflows leaves the webhooks answering
 * 404, or answering with the old version, on each line of n8n
 * (docs/sms-workflow.md, "Taking an upgrade"). Not a test: it prints numbers.
 *
 *   node --import tsx bench/n8n-upgrade.ts [current|older]
 *
 * The "old" version is the shipped file with one difference a probe can see:
 * its contact workflow answers an unsigned call 418 instead of 401. A probe
 * posts an unsigned call every 100 ms from before the upgrade starts until the
 * new version has answered for 15 s, and counts what answered. Three routes:
 * the editor's (2.x: its REST calls, as the editor makes them), and the
 * command line's with n8n running and with n8n stopped.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { n8nLines, startN8n, type N8nLine, type N8nServer } from "../tests/support/n8n-server";
import { probeWebhook, type Probed } from "../tests/support/webhook-probe";
import { webhookPaths, workflowFile, workflowIds } from "../workflows/n8n/build";

const line: N8nLine = process.argv[2] === "older" ? n8nLines.older : n8nLines.current;
const folder = mkdtempSync(path.join(tmpdir(), "sous-upgrade-"));
const newFile = workflowFile;
const oldFile = path.join(folder, "old.json");
type Workflow = { id: string; nodes: Array<{ type: string; parameters: { jsCode?: string } }> };
const shipped = JSON.parse(readFileSync(newFile, "utf8")) as Workflow[];
for (const node of shipped.find((workflow) => workflow.id === workflowIds.contact)!.nodes)
  if (node.parameters.jsCode) node.parameters.jsCode = node.parameters.jsCode.replace("answer(401,", "answer(418,");
writeFileSync(oldFile, JSON.stringify(shipped));
if (!readFileSync(oldFile, "utf8").includes("answer(418,")) throw new Error("the old version is not marked");

/** From the upgrade's start: how long the webhook did not answer, answered 404, or answered the old version. */
function summary(name: string, started: number, seen: Probed[]) {
  const after = seen.filter((entry) => entry.at >= started);
  const firstNew = after.find((entry) => entry.status === 401)?.at ?? NaN;
  const span = (status: number) => {
    const hits = after.filter((entry) => entry.status === status);
    return hits.length ? ((hits.at(-1)!.at - started) / 1000).toFixed(1) : "0";
  };
  const count = (status: number) => after.filter((entry) => entry.status === status).length;
  console.log(
    `${line.label} ${name}: new version from ${((firstNew - started) / 1000).toFixed(1)} s; ` +
      `no answer ${count(0)} probes (last at ${span(0)} s), 404 ${count(404)} probes (last at ${span(404)} s), ` +
      `old version ${count(418)} probes (last at ${span(418)} s), other ${after.filter((e) => ![0, 401, 404, 418].includes(e.status)).length}`,
  );
}

const ids = Object.values(workflowIds);

async function upgrade(name: string, steps: (n8n: N8nServer) => Promise<void>) {
  const n8n = await startN8n(line, { files: [oldFile], ids }, {});
  try {
    const url = n8n.webhookUrl(webhookPaths.contact);
    const watching = probeWebhook(url);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const started = Date.now();
    await steps(n8n);
    const newSince = () => {
      const firstNew = watching.seen.findIndex((entry) => entry.at >= started && entry.status === 401);
      return (
        firstNew >= 0 &&
        watching.seen.slice(firstNew).every((entry) => entry.status === 401) &&
        Date.now() - watching.seen[firstNew]!.at > 15_000
      );
    };
    await watching.until(() => newSince() || Date.now() - started > 180_000);
    summary(name, started, watching.seen);
  } finally {
    await n8n.stop();
  }
}

/**
 * The REST calls n8n's editor makes for the documented upgrade (delete
 * everything, import the workflow's file, publish): save the draft that holds
 * the file's nodes alone (PATCH), then publish that version. 2.x only. The
 * editor itself is driven in tests/e2e/n8n-editor-upgrade.server.spec.ts.
 */
async function throughTheEditor(url: string) {
  const headers = { "content-type": "application/json", "browser-id": "sous-upgrade-bench" };
  const setup = await fetch(`${url}/rest/owner/setup`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      email: "owner@sous.test",
      firstName: "Sous",
      lastName: "Bench",
      password: "Sous-bench-2026",
    }),
  });
  if (!setup.ok) throw new Error(`owner setup: ${setup.status} ${await setup.text()}`);
  const cookie = setup.headers
    .getSetCookie()
    .map((entry) => entry.split(";")[0])
    .join("; ");
  const call = async (method: string, pathName: string, body?: unknown) => {
    const response = await fetch(`${url}/rest/workflows${pathName}`, {
      method,
      headers: { ...headers, cookie },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${pathName}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: { versionId: string } }).data;
  };
  const fresh = JSON.parse(readFileSync(newFile, "utf8")) as Array<Workflow & Record<string, unknown>>;
  for (const workflow of fresh) {
    const current = await call("GET", `/${workflow.id}`);
    const saved = await call("PATCH", `/${workflow.id}`, {
      name: workflow.name,
      nodes: workflow.nodes,
      connections: workflow.connections,
      settings: workflow.settings,
      versionId: current.versionId,
    });
    await call("POST", `/${workflow.id}/activate`, { versionId: saved.versionId });
  }
}

async function main() {
  if (line === n8nLines.current)
    await upgrade("import over each workflow in the editor and publish it", (n8n) => throughTheEditor(n8n.url));
  const importAndPublish = (n8n: N8nServer) => {
    n8n.cli(["import:workflow", `--input=${newFile}`]);
    for (const id of ids) n8n.cli(line.publish(id));
  };
  await upgrade("import and publish while n8n runs", async (n8n) => importAndPublish(n8n));
  await upgrade("stop, import, publish, start", async (n8n) => {
    const restart = n8n.restart.bind(n8n);
    n8n.child.kill("SIGTERM");
    await new Promise((resolve) => n8n.child.once("exit", resolve));
    importAndPublish(n8n);
    await restart();
  });
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(folder, { recursive: true, force: true }));
