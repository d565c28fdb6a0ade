import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { onFreePort, startProcess, type Started } from "./processes";

/**
 * The two proxy examples of docs/sms-workflow.md ("Securing n8n", step 2), run
 * here in front of a real n8n as an operator copies them. Only what a test host
 * cannot have is changed: TLS on port 443 and the public name become plain
 * HTTP on a free port of 127.0.0.1, and n8n's port 5678 the port of the n8n
 * under test. The blocks are read from the document itself, so an edit there
 * is what the specs run.
 */
const doc = path.join(process.cwd(), "docs", "sms-workflow.md");

/** The one fenced block of that language in docs/sms-workflow.md, as written. */
export function docBlock(language: "nginx" | "caddyfile") {
  const blocks = [...readFileSync(doc, "utf8").matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter(
    ([, lang]) => lang === language,
  );
  if (blocks.length !== 1) throw new Error(`docs/sms-workflow.md has ${blocks.length} ${language} blocks, not one`);
  return blocks[0]![2]!;
}

/** Replaces each `from` that must be in the block, so a document that changed fails loudly rather than runs untested. */
function adapted(block: string, changes: Array<[from: string | RegExp, to: string]>) {
  return changes.reduce((text, [from, to]) => {
    if (!(typeof from === "string" ? text.includes(from) : from.test(text)))
      throw new Error(`the example no longer has ${String(from)}:\n${block}`);
    return text.replace(from, to);
  }, block);
}

export type RunningProxy = { url: string; stop(): Promise<void> };

/**
 * Starts a proxy on a free port (another one if a parallel worker's server took it first), its configuration
 * written for that port into its folder, which goes when it stops.
 */
async function run(
  prefix: string,
  configure: (folder: string, port: number) => { command: string; args: string[]; env?: NodeJS.ProcessEnv },
  ready: RegExp,
): Promise<RunningProxy> {
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  let started: Started;
  try {
    started = await onFreePort((port) => {
      const { command, args, env } = configure(folder, port);
      return startProcess(command, args, {
        env: env ?? process.env,
        url: `http://127.0.0.1:${port}`,
        ready: (output) => ready.test(output),
        timeoutMs: 30_000,
      });
    });
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  return {
    url: started.url,
    async stop() {
      await started.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** nginx with the document's server block, in a prefix folder of its own, in the foreground. */
export function startNginxExample(n8nPort: number): Promise<RunningProxy> {
  return run(
    "sous-nginx-",
    (folder, port) => {
      const server = adapted(docBlock("nginx"), [
        ["listen 443 ssl;", `listen 127.0.0.1:${port};`],
        [/127\.0\.0\.1:5678/g, `127.0.0.1:${n8nPort}`],
      ]);
      // One process, as the test's own user: no workers to switch to nobody, who could not enter this folder.
      const conf = `daemon off;
master_process off;
pid ${folder}/nginx.pid;
error_log stderr notice;
events {}
http {
  access_log off;
  client_body_temp_path ${folder}/body;
  proxy_temp_path ${folder}/proxy;
  fastcgi_temp_path ${folder}/fastcgi;
  uwsgi_temp_path ${folder}/uwsgi;
  scgi_temp_path ${folder}/scgi;
${server}
}
`;
      writeFileSync(path.join(folder, "nginx.conf"), conf);
      return { command: "nginx", args: ["-p", folder, "-c", path.join(folder, "nginx.conf")] };
    },
    /event method/,
  );
}

/** Caddy with the document's site block, its admin endpoint off and its state in the folder of its own. */
export function startCaddyExample(n8nPort: number): Promise<RunningProxy> {
  return run(
    "sous-caddy-",
    (folder, port) => {
      const site = adapted(docBlock("caddyfile"), [
        [/^n8n\.example \{/m, `http://127.0.0.1:${port} {`],
        [/127\.0\.0\.1:5678/g, `127.0.0.1:${n8nPort}`],
      ]);
      const file = path.join(folder, "Caddyfile");
      writeFileSync(file, `{\n  admin off\n  auto_https off\n}\n${site}`);
      return {
        command: "caddy",
        args: ["run", "--config", file, "--adapter", "caddyfile"],
        env: { ...process.env, HOME: folder, XDG_DATA_HOME: folder, XDG_CONFIG_HOME: folder },
      };
    },
    /serving initial configuration/,
  );
}
