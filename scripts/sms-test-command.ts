// `npm run sms:test -- STOP|START|HELP PHONE`: posts the workflow's inbound URL what Twilio would, signed as Twilio
// signs it, for a staging check without a phone (docs/sms-workflow.md). TWILIO_AUTH_TOKEN is read from the
// environment only, never a command line; Twilio itself sees nothing, so its own block of the number is untouched.
import { parseArgs } from "node:util";
import { phoneOfAnySpelling } from "@/lib/forms/phone";
import { escapeControls } from "@/server/escape-controls.mjs";
import { incomingSmsFields, postIncomingSms } from "./twilio-inbound";

export const usage = `Usage:
  npm run sms:test -- STOP|START|HELP PHONE [--url URL] [--via ADDRESS]
      posts the workflow's inbound URL the text Twilio would post when PHONE replies that word, signed with
      TWILIO_AUTH_TOKEN (from the environment) for TWILIO_INBOUND_URL (or --url). Twilio itself is not involved:
      its own block of the number is neither set nor lifted.
      --via ADDRESS: post to ADDRESS instead (n8n's own, such as http://127.0.0.1:5678/webhook/sous-sms-inbound
      on n8n's host), still signed for the inbound URL.`;

/** Twilio's OptOutType for each keyword (Advanced Opt-Out sends it with the text). */
const keywords = { STOP: "STOP", START: "START", HELP: "HELP" } as const;

type Env = Record<string, string | undefined>;

/** Where the text goes and how it is signed, or why it cannot be sent. */
export function testTextOf(args: string[], env: Env) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { url: { type: "string" }, via: { type: "string" } },
  });
  const [word = "", phone = "", ...extra] = positionals;
  const keyword = word.toUpperCase();
  if (!Object.hasOwn(keywords, keyword) || !phone || extra.length) throw new Error(usage);
  const from = phoneOfAnySpelling(phone, "US");
  if (!from) throw new Error(`not a phone number: ${phone}`);
  const url = values.url ?? env.TWILIO_INBOUND_URL;
  if (!url) throw new Error("set TWILIO_INBOUND_URL (the URL the number's messaging webhook is set to), or pass --url");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`not a URL: ${url}`);
  }
  if (parsed.protocol !== "https:" && !(local(parsed) && parsed.protocol === "http:"))
    throw new Error(`the inbound URL must be https (Twilio posts only there), not ${url}`);
  const postTo = values.via ?? url;
  let via: URL;
  try {
    via = new URL(postTo);
  } catch {
    throw new Error(`not an address: ${postTo}`);
  }
  if (!["http:", "https:"].includes(via.protocol)) throw new Error(`--via must be an http or https address: ${postTo}`);
  const authToken = env.TWILIO_AUTH_TOKEN;
  if (!authToken)
    throw new Error("set TWILIO_AUTH_TOKEN in the environment: the account's auth token, as the workflow has it");
  const form = incomingSmsFields(
    { From: from, Body: keyword, OptOutType: keywords[keyword as keyof typeof keywords] },
    { accountSid: env.TWILIO_ACCOUNT_SID || undefined, to: env.TWILIO_FROM || undefined },
  );
  return { url, postTo, authToken, form, keyword, from };
}

/** An address on this host, where plain http is no eavesdropper's. */
const local = (address: URL) => ["localhost", "127.0.0.1", "[::1]"].includes(address.hostname);

/** What to look at once the workflow answered. */
function nextStep(keyword: string, from: string, messageSid: string) {
  if (keyword === "HELP") return "The workflow answers HELP itself only with SOUS_HELP_REPLY=on; nothing is recorded.";
  return `npm run consent -- show "${from}" now lists this ${keyword} (message ${messageSid}) and says whether consent is in force.`;
}

export async function smsTestCommand(args: string[], env: Env, print: (line: string) => void) {
  const { url, postTo, authToken, form, keyword, from } = testTextOf(args, env);
  const answer = await postIncomingSms(url, postTo, form, { authToken }).catch((error: unknown) => {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`could not reach ${postTo}: ${cause?.code ?? cause?.message ?? String(error)}`);
  });
  const body = escapeControls(answer.text.slice(0, 300));
  const where = postTo === url ? url : `${postTo}, signed for ${url}`;
  print(`Posted a signed ${keyword} from ${from} to ${where} (message ${answer.messageSid}).`);
  print(`The workflow answered ${answer.status}${body ? `: ${body}` : ""}`);
  if (answer.status === 403)
    throw new Error(
      "403: the workflow refused the signature. TWILIO_AUTH_TOKEN or the URL differs from the workflow's (TWILIO_INBOUND_URL, exactly as Twilio has it)",
    );
  if (answer.status >= 400) throw new Error(`${answer.status}: see the workflow's executions and the alert channel`);
  print(nextStep(keyword, from, answer.messageSid));
}
