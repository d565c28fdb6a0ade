import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { smsTexts } from "@/lib/sms/program";
import { recordConsent } from "@/server/consent/consent-store";
import { connect } from "@/server/db/connect";
import { queueWave } from "@/server/invitations/waves";
import { insertLead, newClaim } from "@/server/outbox/outbox-store";
import { waitlistLead, webConsent } from "@/tests/support/waitlist-lead";

/**
 * Every command the docs give to write a file (`--output FILE`), run as
 * written with `npm run`, against a database that holds a sign-up and an
 * invitation; each file parses as the format its name claims. The output's
 * name is the docs'; only its folder is this test's.
 */
const root = process.cwd();
const phone = "+15035550142";
let folder: string;

/** The docs an operator reads. */
async function docs() {
  const files = [
    "README.md",
    ...(await readdir(path.join(root, "docs"), { recursive: true })).map((name) => path.join("docs", name)),
  ];
  return Promise.all(
    files
      .filter((file) => file.endsWith(".md"))
      .map(async (file) => ({ file, text: await readFile(path.join(root, file), "utf8") })),
  );
}

/** Shell words, as the operator's shell splits them: spaces, and "…" or '…' quoting. */
function words(line: string) {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3] ?? "");
}

/** `npm run leads|consent|invite -- …` commands of the docs (a code line, or inline across a line break). */
async function documentedCommands() {
  const commands: { where: string; script: string; args: string[] }[] = [];
  for (const { file, text } of await docs()) {
    const flat = text.replace(/\n(?!\n)/g, " ");
    for (const match of flat.matchAll(/npm run (leads|consent|invite) -- ([^#`|>\n]*)/g))
      commands.push({ where: file, script: match[1]!, args: words(match[2]!.trim()) });
  }
  return commands;
}

function npmRun(script: string, args: string[]) {
  // The test's database, whatever .env.local says; the project's tsconfig for tsx. npm's own settings from the npm
  // that ran the tests (`npm run test:unit --silent` passes npm_config_loglevel on) are not an operator's shell's.
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name !== "NODE_ENV" && !/^npm_config_loglevel$/i.test(name)),
    ),
    DATA_DIR: folder,
    DATABASE_URL: "",
    TSX_TSCONFIG_PATH: path.join(root, "tsconfig.json"),
  };
  // Without NODE_ENV, as an operator's shell: the type says every process has one.
  return promisify(execFile)("npm", ["run", script, "--", ...args], {
    cwd: root,
    env: env as unknown as NodeJS.ProcessEnv,
  });
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "sous-documented-"));
  const store = await connect({ DATA_DIR: folder, DATABASE_URL: undefined });
  // Welcomed: a wave invites only numbers whose welcome was texted.
  const lead = waitlistLead(phone, { state: "delivered", answer: "texted" });
  await insertLead(store, lead, newClaim(0));
  await recordConsent(store, { evidence: webConsent(phone), leadId: lead.id, at: Date.parse("2026-03-01T12:00:00Z") });
  await queueWave(store, {
    name: "launch-1",
    selection: { all: true },
    text: () => smsTexts.invitation("https://sous.example/start"),
    now: Date.now(),
  });
  await store.db.destroy();
}, 60_000);
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("the docs' commands that write a file", () => {
  it("write every export and every --json with --output, never with > (npm's banner would start the file)", async () => {
    const commands = await documentedCommands();
    const writing = commands.filter(({ args }) => args.includes("export") || args.includes("--json"));
    expect(writing.length).toBeGreaterThanOrEqual(8);
    for (const { where, script, args } of writing)
      expect(args, `${where}: npm run ${script} -- ${args.join(" ")}`).toContain("--output");
    const docsText = (await docs()).map(({ text }) => text).join("\n");
    expect(docsText).not.toMatch(/npm run (leads|consent|invite) -- [^\n#`]*> /);
  });

  it("each writes a file that parses as its name says: CSV with a header and a row, JSON, or JSON lines", async () => {
    const commands = (await documentedCommands()).filter(({ args }) => args.includes("--output"));
    const seen = new Set<string>();
    for (const { where, script, args } of commands) {
      const at = args.indexOf("--output");
      const name = args[at + 1]!;
      const file = path.join(folder, `${seen.size}-${name}`);
      seen.add(name);
      // A list of numbers the docs name (--phones chefs.txt): this test's own, with the sign-up's number.
      const phones = args.indexOf("--phones");
      let given = args.with(at + 1, file);
      if (phones !== -1) {
        const list = path.join(folder, args[phones + 1]!);
        await writeFile(list, "# chefs\n(503) 555-0142\n");
        given = given.with(phones + 1, list);
      }
      const run = await npmRun(script, given);
      const label = `${where}: npm run ${script} -- ${args.join(" ")}`;
      expect(run.stderr, label).toContain(`Wrote `);
      const text = await readFile(file, "utf8");
      if (name.endsWith(".csv")) {
        const rows = parse(text, { columns: true }) as Record<string, string>[];
        expect(rows.length, label).toBeGreaterThanOrEqual(1);
        expect(Object.values(rows[0]!).join(","), label).toContain(phone);
      } else if (name.endsWith(".jsonl")) {
        const lines = text.trimEnd().split("\n");
        expect(lines.length, label).toBeGreaterThanOrEqual(1);
        for (const line of lines) expect(() => JSON.parse(line), `${label}: ${line}`).not.toThrow();
      } else {
        expect(name, label).toMatch(/\.json$/);
        expect(() => JSON.parse(text), label).not.toThrow();
      }
    }
    expect([...seen].sort()).toStrictEqual(
      [
        "consents.csv",
        "consents.jsonl",
        "invitations.jsonl",
        "leads.json",
        "plan.json",
        "sign-ups.csv",
        "status.json",
        "textable.csv",
      ].sort(),
    );
  }, 180_000);

  it("would not parse as documented before: npm's banner starts what > would have written", async () => {
    const { stdout } = await npmRun("consent", ["export", "--format", "jsonl"]);
    const [first, ...rest] = stdout.split("\n");
    expect(first).toBe("");
    expect(rest[0]).toMatch(/^> /);
    expect(() => JSON.parse(first!)).toThrow();
    // The records themselves are there, after the banner.
    expect(rest.some((line) => line.startsWith("{") && JSON.parse(line).phone === phone)).toBe(true);
  }, 60_000);
});
