// `npm run invite`: plan, queue, follow, export and cancel a wave; the server's schedule sends what is queued, at its
// pace and within each number's hours (docs/operating.md, "Inviting the waitlist").
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { phoneOfAnySpelling } from "@/lib/forms/phone";
import { database, type Store } from "@/server/db/connect";
import { invitationStates } from "@/server/db/schema";
import { readEnv, type ServerEnv } from "@/server/env";
import { waveNamed } from "@/server/invitations/invitation-store";
import { planWave, type WavePlan, type WaveSelection } from "@/server/invitations/waves";
import { toCsv } from "@/server/console/csv";
import {
  cancelWaveNamed,
  isWaveName,
  launchWave,
  refusalWords,
  waveStateLabels,
  waveStatus,
} from "@/server/invitations/launch";
import { invitationExport, recordExport } from "@/server/console/exports";
import { commandActorAs } from "@/server/operators/operators";
import { jsonSafe, safeSinks } from "./safe-output";

const usage = `Usage:
  npm run invite -- plan (--next N | --all | --phones FILE) [--json]
                                  who a wave would text, in sign-up order: numbers whose consent is in force
                                  and who were never invited; and how many are left out, and why. Sends nothing
  npm run invite -- send (--next N | --all | --phones FILE) --wave NAME [--unsigned]
                                  records the wave and queues one invitation per number; the server sends them
                                  at INVITE_PER_MINUTE, within INVITE_HOURS at each number's location. Refused
                                  without INVITE_WEBHOOK_SECRET or INVITE_WEBHOOK_AUTH_HEADER unless --unsigned
  npm run invite -- status [--wave NAME] [--json]
                                  how many are queued, waiting for sending hours, texted, refused (by carrier code),
                                  skipped (consent revoked), failed, cancelled
  npm run invite -- export [--wave NAME] [--format csv|jsonl]
                                  every invitation, its text, consent record and answer, to stdout
  npm run invite -- cancel --wave NAME
                                  stops what the wave has not sent: those no try could have texted go back to the waitlist

FILE holds one phone number a line, in any spelling; blank lines and lines starting with # are skipped.

Every command takes --output FILE: its output goes to FILE (mode 600), written whole once it succeeded.
Every command that changes or exports something takes --as EMAIL: the activity log names that operator
instead of the machine's user.`;

type Print = (line: string) => void;
type Values = ReturnType<typeof parse>["values"];

const parse = (args: string[]) =>
  parseArgs({
    args,
    allowPositionals: true,
    options: {
      next: { type: "string" },
      all: { type: "boolean" },
      phones: { type: "string" },
      wave: { type: "string" },
      json: { type: "boolean" },
      unsigned: { type: "boolean" },
      format: { type: "string", default: "csv" },
      as: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The numbers of a phones file; every line that is not one is named, and nothing is done. */
function phonesOf(file: string, env: ServerEnv) {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`--phones: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const phones: string[] = [];
  const bad: string[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const phone = phoneOfAnySpelling(line, env.PHONE_DEFAULT_COUNTRY);
    if (phone) phones.push(phone);
    else bad.push(`  line ${index + 1}: "${line}" is not a phone number`);
  }
  if (bad.length)
    throw new Error(
      `--phones: ${bad.length} line${bad.length === 1 ? "" : "s"} of ${file} not a number; nothing was done:\n${bad.join("\n")}`,
    );
  if (!phones.length) throw new Error(`--phones: ${file} holds no phone number`);
  return phones;
}

/** Exactly one of --next N (N at least 1), --all and --phones FILE. */
function selectionOf(values: Values, env: ServerEnv): WaveSelection {
  const given = [values.next !== undefined, Boolean(values.all), values.phones !== undefined].filter(Boolean).length;
  if (given !== 1) throw new Error(`name who: one of --next N, --all or --phones FILE\n${usage}`);
  if (values.all) return { all: true };
  if (values.phones !== undefined) return { phones: phonesOf(values.phones, env) };
  const next = Number(values.next);
  if (!/^\d+$/.test(values.next!) || !Number.isSafeInteger(next) || next < 1)
    throw new Error(`--next takes a whole number of 1 or more, not ${values.next}`);
  return { next };
}

function printPlan(print: Print, plan: WavePlan) {
  const { chosen, later, leftOut } = plan;
  print(`${chosen.length} number${chosen.length === 1 ? "" : "s"} would be texted, in sign-up order:`);
  for (const { phone, signedUpAt, consentId } of chosen)
    print(`  ${phone}  signed up ${iso(signedUpAt)}  consent ${consentId}`);
  print(
    `Left out: ${leftOut.revoked} revoked, ${leftOut.invited} already invited, ${leftOut.noRecord} with no consent record, ${leftOut.country} outside WAITLIST_PHONE_COUNTRIES, ${leftOut.welcome} whose welcome was not texted${leftOut.welcome ? ":" : "."}`,
  );
  for (const { phone, welcome } of plan.notWelcomed) print(`  ${phone}  welcome ${welcome}`);
  if (later) print(`${later} more in force and never invited, for a later wave.`);
}

const planJson = (plan: WavePlan) => ({
  chosen: plan.chosen.map((entry) => ({ ...entry, signedUpAt: iso(entry.signedUpAt) })),
  later: plan.later,
  leftOut: plan.leftOut,
  notWelcomed: plan.notWelcomed,
});

const waveName = (values: Values) => {
  const name = values.wave;
  if (name === undefined) throw new Error(`--wave NAME is needed\n${usage}`);
  if (!isWaveName(name))
    throw new Error(`--wave: a name of letters, digits, ".", "_" or "-" (64 at most), starting with a letter or digit`);
  return name;
};

async function existingWave(store: Store, values: Values) {
  if (values.wave === undefined) return undefined;
  const name = waveName(values);
  if (!(await waveNamed(store, name))) throw new Error(`no wave named ${name}`);
  return name;
}

type Run = { values: Values; env: ServerEnv; print: Print; write: (text: string) => void };

const commands: Record<string, (run: Run) => Promise<void>> = {
  async plan({ values, env, print }) {
    const selection = selectionOf(values, env);
    const plan = await planWave(await database(env), selection);
    if (values.json) print(jsonSafe(JSON.stringify(planJson(plan), null, 2)));
    else printPlan(print, plan);
  },

  async send({ values, env, print }) {
    const name = waveName(values);
    const selection = selectionOf(values, env);
    const { queued, settings } = await launchWave(await database(env), {
      name,
      selection,
      unsigned: Boolean(values.unsigned),
      by: commandActorAs(values.as),
    });
    printPlan(print, queued.plan);
    if (!queued.queued) return print(`Nothing to queue: wave ${name} was not recorded.`);
    print(
      `Queued ${queued.queued} invitation${queued.queued === 1 ? "" : "s"} in wave ${name}: the server sends them at ${settings.perMinute} a minute, between ${settings.hours.from}:00 and ${settings.hours.to}:00 at each number's location.`,
    );
    if (queued.queued < queued.plan.chosen.length)
      print(`${queued.plan.chosen.length - queued.queued} were invited by another wave meanwhile, and are not again.`);
  },

  async status({ values, env, print }) {
    const store = await database(env);
    const status = await waveStatus(store, await existingWave(store, values));
    if (values.json) return print(JSON.stringify(status, null, 2));
    print(status.wave ? `Wave ${status.wave}:` : "Every wave:");
    const { queued, texted, opened, stopped, failed } = status.response;
    print(`  Queued ${queued}, Texted ${texted}, Opened ${opened}, Stopped ${stopped}, Failed ${failed}`);
    const width = Math.max(...Object.values(waveStateLabels).map((label) => label.length));
    for (const state of invitationStates) {
      const extra =
        state === "queued" && status.retrying
          ? `  (${status.retrying} retried after a failure)`
          : state === "refused" && status.counts.refused
            ? `  (${Object.entries(status.refusedByCode)
                .map(([code, n]) => `${refusalWords(code === "unknown" ? null : code)}: ${n}`)
                .join(", ")})`
            : state === "waiting" && status.waitingFor.length
              ? `  (${status.waitingFor.map((group) => `${group.count} until ${group.until} in ${group.zones.join(", ")}`).join("; ")})`
              : "";
      print(`  ${waveStateLabels[state].padEnd(width)}  ${String(status.counts[state]).padStart(6)}${extra}`);
    }
    const { receiver } = status;
    if (receiver)
      print(
        `The workflow is failing since ${receiver.failingSince}${receiver.lastFailure ? `, last answered ${receiver.lastFailure}` : ""}. ${receiver.advice}`,
      );
  },

  async export({ values, env, write }) {
    if (values.format !== "csv" && values.format !== "jsonl") throw new Error(`--format is csv or jsonl\n${usage}`);
    const store = await database(env);
    const wave = await existingWave(store, values);
    const made = await invitationExport(store, { wave });
    // JSONL is the record exactly as kept; CSV is made safe to open in a spreadsheet.
    if (values.format === "jsonl") for (const row of made.rows) write(`${jsonSafe(JSON.stringify(row))}\n`);
    else write(toCsv(made.columns, made.rows));
    await recordExport(store, {
      by: commandActorAs(values.as),
      kind: wave ? `invitations of ${wave}` : "invitations",
      rows: made.rows.length,
    });
  },

  async cancel({ values, env, print }) {
    const name = waveName(values);
    print(cancelReport(name, await cancelWaveNamed(await database(env), { name, by: commandActorAs(values.as) })));
  },
};

/** What a cancel stopped, what it gave back to later waves, and what it could not stop. */
export function cancelReport(
  name: string,
  { cancelled, givenBack, onTheirWay }: { cancelled: number; givenBack: number; onTheirWay: number },
) {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
  const tried = cancelled - givenBack;
  const parts = [`Cancelled ${plural(cancelled, "invitation")} of wave ${name} not sent yet.`];
  if (givenBack)
    parts.push(
      `${givenBack} never reached the carrier (never tried, or refused before any text): a later wave can take ${givenBack === 1 ? "it" : "them"} (npm run invite -- plan).`,
    );
  if (tried)
    parts.push(
      `${tried} tried before with a failure that may have reached the carrier: ${tried === 1 ? "it stays" : "they stay"} invited.`,
    );
  parts.push(
    onTheirWay === 0
      ? "None was being sent."
      : `${onTheirWay} being sent now still ${onTheirWay === 1 ? "goes" : "go"}.`,
  );
  return parts.join(" ");
}

/** Runs one command; lines go to `print`, the export to `write`. Throws with the usage for a bad call. */
export async function inviteCommand(args: string[], rawPrint: Print, rawWrite: (text: string) => void) {
  const { print, write } = safeSinks(rawPrint, rawWrite);
  const { values, positionals } = parse(args);
  const [command] = positionals;
  if (values.help || !command) return print(usage);
  const run = Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (!run) throw new Error(`unknown command ${command}\n${usage}`);
  await run({ values, env: readEnv(), print, write });
}
