import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordConsent } from "@/server/consent/consent-store";
import { inTransaction, connect, type Store } from "@/server/db/connect";
import { insertLead, newClaim } from "@/server/outbox/outbox-store";
import { startPostgresServer, type PostgresServer } from "@/tests/support/postgres-server";
import { waitlistLead, webConsent } from "@/tests/support/waitlist-lead";

/**
 * The operator's commands as an operator runs them: a separate process, from
 * a folder whose `.env.local` holds the settings (the file `next start`
 * reads), and nothing about the database in the environment.
 */
const root = process.cwd();
// tsx as `--import tsx` finds it from the project, whatever folder the command runs in.
const tsx = import.meta.resolve("tsx");
const phone = "+15035550142";
let postgres: PostgresServer;
let folder: string;

beforeAll(async () => {
  postgres = await startPostgresServer();
  // The operator's copy of the site: its own .env.local, the project's packages.
  folder = await mkdtemp(path.join(tmpdir(), "sous-operator-"));
  await symlink(path.join(root, "node_modules"), path.join(folder, "node_modules"));
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
  await rm(folder, { recursive: true, force: true });
});

/** A sign-up with its consent, kept where the server would keep it. */
async function signUp(store: Store) {
  const lead = waitlistLead(phone);
  await inTransaction(store, async (db) => {
    await insertLead(db, lead, newClaim(0));
    await recordConsent(db, { evidence: webConsent(phone), leadId: lead.id, at: Date.now() });
  });
  await store.db.destroy();
  return lead.id;
}

/** The operator's shell: no database setting, no NODE_ENV; the project's tsconfig for tsx. */
function shell(extra: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, TSX_TSCONFIG_PATH: path.join(root, "tsconfig.json") };
  for (const name of ["DATA_DIR", "DATABASE_URL", "NODE_ENV"]) delete env[name];
  return { ...env, ...extra };
}

/** Runs `npm run <script> -- args` as package.json does, from the operator's folder. */
function command(script: "consent" | "leads", args: string[], env: Record<string, string> = {}) {
  return promisify(execFile)(
    process.execPath,
    ["--conditions=react-server", "--import", tsx, path.join(root, "scripts", `${script}.ts`), ...args],
    { cwd: folder, env: shell(env) },
  );
}

describe.each(["sqlite", "postgres"] as const)(
  "npm run consent and leads with the settings only in .env.local, on %s",
  (engine) => {
    it("read the server's database, say which on their first line, and take values with spaces", async () => {
      const dataDir = path.join(folder, `data-${engine}`);
      const settings =
        engine === "sqlite"
          ? { DATA_DIR: dataDir, DATABASE_URL: undefined }
          : { DATA_DIR: dataDir, DATABASE_URL: postgres.url };
      const leadId = await signUp(await connect(settings));
      await writeFile(
        path.join(folder, ".env.local"),
        [
          `DATA_DIR=${dataDir}`,
          ...(settings.DATABASE_URL ? [`DATABASE_URL=${settings.DATABASE_URL}`] : []),
          "BUSINESS_POSTAL_ADDRESS=123 Test St, Springfield, OR 97477",
          "",
        ].join("\n"),
      );
      const where =
        engine === "sqlite"
          ? `sqlite at ${path.join(dataDir, "sous.db")}`
          : `postgres at ${new URL(postgres.url).host}${new URL(postgres.url).pathname}`;

      const shown = await command("consent", ["show", "(503) 555-0142"]);
      expect(shown.stderr.split("\n")[0]).toBe(where);
      expect(shown.stdout).toContain(`${phone}: 1 consent record, 0 revocations`);
      expect(shown.stdout).toContain("Consent in force: yes");

      const listed = await command("leads", ["list", "--json", "--state", "all"]);
      expect(listed.stderr.split("\n")[0]).toBe(where);
      expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((lead) => lead.id)).toContain(leadId);
      expect(listed.stderr).not.toContain("password");

      // A variable set in the environment wins over the file, as with next start.
      const elsewhere = await command("consent", ["show", phone], {
        DATA_DIR: path.join(folder, "elsewhere"),
        DATABASE_URL: "",
      });
      expect(elsewhere.stderr.split("\n")[0]).toBe(`sqlite at ${path.join(folder, "elsewhere", "sous.db")}`);
      expect(elsewhere.stdout).toContain("0 consent records");
    }, 60_000);
  },
);

describe("a command whose reader stops early", () => {
  it("ends quietly, exit 0, without a stack trace (npm run consent -- export | head -1)", async () => {
    const dataDir = path.join(folder, "data-many");
    // Enough records that the export is still writing when the reader goes.
    const store = await connect({ DATA_DIR: dataDir, DATABASE_URL: undefined });
    const lead = waitlistLead(phone);
    await insertLead(store, lead, newClaim(0));
    await inTransaction(store, async (db) => {
      for (let i = 0; i < 3_000; i += 1) {
        await recordConsent(db, { evidence: webConsent(phone), leadId: lead.id, at: 1_000 + i });
      }
    });
    await store.db.destroy();
    await writeFile(path.join(folder, ".env.local"), `DATA_DIR=${dataDir}\n`);
    const child = spawn(
      process.execPath,
      ["--conditions=react-server", "--import", tsx, path.join(root, "scripts", "consent.ts"), "export"],
      {
        cwd: folder,
        env: shell(),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // The first bytes arrive, and the reader goes away, as head does.
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(stderr).not.toContain("EPIPE");
    expect(code).toBe(0);
  }, 60_000);
});
