// `npm run leads`: list, show, export, retry and drop, with the server's own settings (docs/operating.md). Lines go
// to `line` and exports to `write`, so a test runs it in process.
import { parseArgs } from "node:util";
import { database, type Store } from "@/server/db/connect";
import { leadStates, type LeadState } from "@/server/db/schema";
import { valuesOf, type LeadRow } from "@/server/forms/leads";
import { attemptsOf, leadById, listLeads } from "@/server/outbox/outbox-store";
import { commandActorAs } from "@/server/operators/operators";
import { dropLeadById, redeliverLeads } from "@/server/ops/lead-actions";
import { readEnv, type ServerEnv } from "@/server/env";
import { toCsv } from "@/server/console/csv";
import { consentOf, leadExport, leftOutWords, recordExport } from "@/server/console/exports";
import { jsonSafe, safeSinks } from "./safe-output";

const usage = `Usage:
  npm run leads                                  open leads (pending, held, dead, awaiting_start, awaiting_release), without personal data
  npm run leads -- --show                        the same, with each lead's values
  npm run leads -- list --json [--state S] [--form F]
                                                 leads as a JSON array, for scripts (--state all for every state)
  npm run leads -- show ID                       one lead (its webhook-id), its values and its delivery log
  npm run leads -- export --form F [--format csv|jsonl] [--state S] [--consented]
                                                 the values of a form's leads that still have them, to stdout;
                                                 a sign-up's number comes with its consent (in force, revoked or none),
                                                 and --consented keeps only the numbers whose consent is in force
  npm run leads -- retry                         send every pending and held lead now
  npm run leads -- retry ID                      send one lead now
  npm run leads -- retry --dead                  send every dead lead now
  npm run leads -- drop ID                       delete one open lead and its delivery log

Every command takes --output FILE: its output goes to FILE (mode 600), written whole once it succeeded.
Every command that changes or exports something takes --as EMAIL: the activity log names that operator
instead of the machine's user.`;

// awaiting_start: a web sign-up of a number that revoked its consent, sent once the phone texts START;
// awaiting_release: past the day's texts budget, sent by `retry ID` or dropped by `drop ID`.
const openStates: LeadState[] = ["pending", "held", "dead", "awaiting_start", "awaiting_release"];
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function age(ms: number) {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min` : `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

function statesOf(option: string | undefined): LeadState[] {
  if (!option) return openStates;
  if (option === "all") return [...leadStates];
  const states = option.split(",");
  const unknown = states.filter((state) => !(leadStates as readonly string[]).includes(state));
  if (unknown.length) throw new Error(`unknown state ${unknown.join(", ")}: one of ${leadStates.join(", ")}, or all`);
  return states as LeadState[];
}

/** What scripts get of a lead: where it stands, never its values. */
const summaryOf = (row: LeadRow) => ({
  id: row.id,
  form: row.receiver,
  state: row.state,
  attempts: row.attempts,
  createdAt: iso(row.created_at),
  nextAttemptAt: row.state === "pending" ? iso(row.next_attempt_at) : null,
  lastFailure: row.last_failure,
});

function print(rows: LeadRow[], show: boolean, line: (text: string) => void) {
  if (!rows.length) return line("No pending, held, dead, awaiting_start or awaiting_release leads.");
  const now = Date.now();
  for (const state of openStates) {
    for (const form of [...new Set(rows.map((row) => row.receiver))].sort()) {
      const group = rows.filter((row) => row.state === state && row.receiver === form);
      if (!group.length) continue;
      line(`\n${form}: ${group.length} ${state}`);
      for (const row of group) {
        const next = state === "pending" ? `  next in ${age(Math.max(0, row.next_attempt_at - now))}` : "";
        line(
          `  ${row.id}  age ${age(now - row.created_at)}  attempts ${row.attempts}  last failure ${row.last_failure ?? "none"}${next}`,
        );
        if (show) line(`    ${row.payload ?? "(values removed)"}`);
      }
    }
  }
}

/** What each subcommand is given. */
type Run = {
  values: ReturnType<typeof parse>["values"];
  id: string | undefined;
  store: Store;
  env: ServerEnv;
  line: (text: string) => void;
  write: (text: string) => void;
};

/** `list`: open leads by form and state, or every lead as JSON for scripts (`--json`). */
async function listCommand({ values, store, line }: Run) {
  const rows = await listLeads(store, { states: statesOf(values.state), form: values.form });
  if (!values.json) return print(rows, Boolean(values.show), line);
  const consent = await consentOf(store, rows);
  return line(
    jsonSafe(
      JSON.stringify(
        rows.map((row) => ({ ...summaryOf(row), ...(consent(row) !== undefined ? { consent: consent(row) } : {}) })),
        null,
        2,
      ),
    ),
  );
}

/** `show ID`: one lead, its values and its delivery log. */
async function showCommand({ id, store, line }: Run) {
  if (!id) throw new Error(`unknown command\n${usage}`);
  const row = await leadById(store, id);
  if (!row) throw new Error(`no lead with webhook-id ${id}`);
  const deliveryLog = (await attemptsOf(store, id)).map((attempt) => ({
    number: attempt.number,
    at: iso(attempt.at),
    sender: attempt.sender,
    status: attempt.status,
    failure: attempt.failure,
    durationMs: attempt.duration_ms,
  }));
  const payload = row.payload === null ? null : (valuesOf(row) ?? row.payload);
  return line(
    jsonSafe(JSON.stringify({ ...summaryOf(row), deliveredAt: iso(row.delivered_at), payload, deliveryLog }, null, 2)),
  );
}

/** `export --form F`: the values of a form's leads, as CSV or JSONL, spreadsheet-safe. */
async function exportCommand({ values, store, write }: Run) {
  if (!values.form) throw new Error(`export needs --form\n${usage}`);
  if (values.format !== "csv" && values.format !== "jsonl") throw new Error("--format is csv or jsonl");
  const made = await leadExport(store, {
    form: values.form,
    states: statesOf(values.state ?? "all"),
    consented: Boolean(values.consented),
  });
  if (values.format === "jsonl") for (const row of made.records) write(`${jsonSafe(JSON.stringify(row))}\n`);
  else write(toCsv(made.columns, made.rows));
  await recordExport(store, { by: commandActorAs(values.as), kind: `${values.form} leads`, rows: made.records.length });
  return { note: leftOutWords(made.leftOut) };
}

/**
 * `retry [ID | --dead]`: the schedule's lead task now, as the operator's, and
 * the alerts' review after it. The launch invitations go at their own pace,
 * from the server's schedule (npm run invite).
 */
async function retryCommand({ values, id, env, line }: Run) {
  const summary = await redeliverLeads(env, { id, dead: Boolean(values.dead), by: commandActorAs(values.as) });
  line(`delivered ${summary.delivered}, still pending ${summary.pending}, dead ${summary.dead}, held ${summary.held}`);
  if (id && !summary.delivered && !summary.pending && !summary.dead && !summary.held)
    throw new Error(`no open lead with webhook-id ${id}, or another sender holds it`);
  return;
}

/** `drop ID`: deletes one open lead (pending, held, dead) and its delivery log. */
async function dropCommand({ values, id, env, line }: Run) {
  if (!id) throw new Error(`unknown command\n${usage}`);
  if (!(await dropLeadById(env, { id, by: commandActorAs(values.as) })))
    throw new Error(`no open lead with webhook-id ${id}`);
  return line(`dropped ${id}`);
}

const commands: Record<string, (run: Run) => Promise<void | { note: string }>> = {
  list: listCommand,
  show: showCommand,
  export: exportCommand,
  retry: retryCommand,
  drop: dropCommand,
};

const parse = (args: string[]) =>
  parseArgs({
    args,
    allowPositionals: true,
    options: {
      show: { type: "boolean" },
      json: { type: "boolean" },
      dead: { type: "boolean" },
      state: { type: "string" },
      form: { type: "string" },
      format: { type: "string", default: "csv" },
      consented: { type: "boolean" },
      as: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });

/** The operator's command: one handler per subcommand, each given the options, the database and where to print. */
export async function leadsCommand(args: string[], rawLine: (text: string) => void, rawWrite: (text: string) => void) {
  const { print: line, write } = safeSinks(rawLine, rawWrite);
  const { values, positionals } = parse(args);
  const [command = "list", id] = positionals;
  if (values.help) return line(usage);
  const run = Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (!run) throw new Error(`unknown command\n${usage}`);
  const env = readEnv();
  return run({ values, id, store: await database(env), env, line, write });
}
