/**
 * `npm run consent` (scripts/consent.ts): the operator's view of the SMS consent records: show a number's history,
 * export every record for an audit, record a revocation. Reads the same env as the server (DATABASE_URL or DATA_DIR);
 * see docs/operating.md, "SMS consent".
 */
import { parseArgs } from "node:util";
import { phoneOfAnySpelling } from "@/lib/forms/phone";
import {
  consentRecords,
  consentStates,
  revocationChannels,
  type RevocationChannel,
} from "@/server/consent/consent-store";
import { database } from "@/server/db/connect";
import { revokeConsent } from "@/server/consent/consent-changes";
import { readEnv } from "@/server/env";
import { commandActorAs } from "@/server/operators/operators";
import { toCsv } from "@/server/console/csv";
import { consentExport, invitationRows, recordExport, timeline, type History } from "@/server/console/exports";
import { jsonSafe, safeSinks } from "./safe-output";
import { refusalWords } from "@/server/invitations/launch";

const usage = `Usage:
  npm run consent -- show PHONE [--json]        every consent record, revocation and START of a number (any spelling), with the text shown
  npm run consent -- export [--since YYYY-MM-DD] [--format csv|jsonl]
                                                every record, revocation and START to stdout: CSV safe to open in a
                                                spreadsheet (a cell that would run as a formula starts with '),
                                                or JSONL, each record exactly as kept
  npm run consent -- revoke PHONE [--channel sms|email|other]
                                                record that the number's consent ended (default channel: other); its undelivered leads are not sent

Every command takes --output FILE: its output goes to FILE (mode 600), written whole once it succeeded.
Every command that changes or exports something takes --as EMAIL: the activity log names that operator
instead of the machine's user.`;

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

type Print = (line: string) => void;

function printHistory(print: Print, phone: string, history: History, inForce: boolean) {
  const { consents, revocations, renewals } = history;
  print(
    `${phone}: ${count(consents.length, "consent record")}, ${count(revocations.length, "revocation")}` +
      (renewals.length ? `, ${count(renewals.length, "START")}` : ""),
  );
  for (const row of timeline(history)) {
    if (row.record === "consent") {
      print(`\nconsent ${row.id}  ${row.at}`);
      print(`  ip          ${row.ip ?? "unknown"}`);
      print(`  browser     ${row.user_agent ?? "unknown"}`);
      print(`  page        ${row.page_url ?? "unknown"}`);
      print(
        `  sent by     ${row.javascript === "on" ? "the page's JavaScript" : "the browser's own form post (JavaScript off)"}`,
      );
      print(`  lead        ${row.lead_id}`);
      print(`  disclosure  ${row.disclosure_version}\n    "${row.disclosure_text}"`);
      if (row.puts_in_force === "no")
        print("  evidence only: the number had revoked its consent; its sign-up waits for a START from the phone");
    } else if (row.record === "renewal") {
      print(`\nSTART ${row.id}  ${row.at}`);
      print(`  channel     ${row.channel}, recorded by the ${row.source} (webhook-id ${row.message_id})`);
    } else {
      print(`\nrevocation ${row.id}  ${row.at}`);
      print(
        `  channel     ${row.channel}, recorded by the ${row.source}${row.message_id ? ` (webhook-id ${row.message_id})` : ""}`,
      );
    }
  }
  print(`\nConsent in force: ${inForce ? "yes" : "no"}`);
}

/** The number's launch invitation, if it was invited: the answer to "did you text me?". */
function printInvitations(print: Print, invitations: Awaited<ReturnType<typeof invitationRows>>) {
  if (!invitations.length) return print("Launch invitation: none");
  for (const invitation of invitations) {
    print(`\nlaunch invitation ${invitation.id}  wave ${invitation.wave}  ${invitation.state}`);
    print(`  queued      ${invitation.queued_at}, relying on consent ${invitation.consent_id}`);
    if (invitation.waiting_until)
      print(`  waiting     until ${invitation.waiting_until}, for its sending hours in ${invitation.waiting_for}`);
    if (invitation.claimed_at)
      print(
        `  sent        ${invitation.claimed_at} (${invitation.attempts} attempt${invitation.attempts === 1 ? "" : "s"})`,
      );
    if (invitation.answered_at)
      print(
        `  answered    ${invitation.answered_at}: ${invitation.state === "refused" ? refusalWords(invitation.carrier_code) : invitation.state}`,
      );
    if (invitation.opened_at) print(`  opened      ${invitation.opened_at}`);
    if (invitation.stopped_at) print(`  stopped     ${invitation.stopped_at}`);
    if (invitation.last_failure) print(`  last failure ${invitation.last_failure}`);
    print(`  text        "${invitation.text}"`);
  }
}

function dayOf(text: string) {
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(ms))
    throw new Error(`--since takes a date, YYYY-MM-DD, not ${text}`);
  return ms;
}

/** Runs one command; lines go to `print`, the export's CSV to `write`. Throws with the usage for a bad call. */
export async function consentCommand(args: string[], rawPrint: Print, rawWrite: (text: string) => void) {
  const { print, write } = safeSinks(rawPrint, rawWrite);
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      since: { type: "string" },
      format: { type: "string", default: "csv" },
      channel: { type: "string", default: "other" },
      json: { type: "boolean" },
      as: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, typed] = positionals;
  if (values.help || !command) return print(usage);

  const env = readEnv();
  const phoneOf = (text: string | undefined) => {
    const phone = text && phoneOfAnySpelling(text, env.PHONE_DEFAULT_COUNTRY);
    if (!phone) throw new Error(`${command} needs a phone number, e.g. "(555) 123-4567" or +15551234567\n${usage}`);
    return phone;
  };

  if (command === "show") {
    const phone = phoneOf(typed);
    const store = await database(env);
    const history = await consentRecords(store, { phone });
    const inForce = (await consentStates(store, [phone])).get(phone) === "in force";
    const invitations = await invitationRows(store, { phone });
    if (values.json)
      return print(jsonSafe(JSON.stringify({ phone, inForce, records: timeline(history), invitations }, null, 2)));
    printHistory(print, phone, history, inForce);
    printInvitations(print, invitations);
    return;
  }

  if (command === "export") {
    if (values.format !== "csv" && values.format !== "jsonl") throw new Error(`--format is csv or jsonl\n${usage}`);
    const store = await database(env);
    const made = await consentExport(store, { since: values.since ? dayOf(values.since) : undefined });
    // JSONL is the evidence exactly as recorded, for an auditor; CSV is made safe to open in a spreadsheet.
    if (values.format === "jsonl") for (const row of made.rows) write(`${jsonSafe(JSON.stringify(row))}\n`);
    else write(toCsv(made.columns, made.rows));
    await recordExport(store, { by: commandActorAs(values.as), kind: "consent records", rows: made.rows.length });
    return;
  }

  if (command === "revoke") {
    const phone = phoneOf(typed);
    if (!(revocationChannels as readonly string[]).includes(values.channel))
      throw new Error(`--channel is one of ${revocationChannels.join(", ")}`);
    const store = await database(env);
    const result = await revokeConsent(
      store,
      { phone, channel: values.channel as RevocationChannel, source: "operator" },
      { by: commandActorAs(values.as) },
    );
    await store.durable();
    return print(
      `Recorded: consent of ${phone} ended now (${values.channel}); ${result.leadsStopped} undelivered lead${result.leadsStopped === 1 ? "" : "s"} will not be sent.`,
    );
  }
  throw new Error(`unknown command ${command}\n${usage}`);
}
