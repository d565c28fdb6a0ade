// The "Read the message" node of "Sous: incoming texts": Twilio posts every message a chef sends to
// /webhook/sous-sms-inbound. This node checks that Twilio signed it, reads what the chef asked, and decides the TwiML
// answer; a STOP or a START is then recorded at the site by the next node, after Twilio has its answer.

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

/** Twilio's X-Twilio-Signature: base64 HMAC-SHA1 of the URL, then every field's name and value, sorted by name. */
function twilioSignature(authToken, url, pairs) {
  const sorted = [...pairs].sort(([a, aValue], [b, bValue]) =>
    a < b ? -1 : a > b ? 1 : aValue < bValue ? -1 : aValue > bValue ? 1 : 0,
  );
  const signed = url + sorted.map(([name, value]) => name + value).join("");
  return crypto.createHmac("sha1", authToken).update(signed, "utf8").digest();
}

/** The words of a reply, upper-cased, punctuation gone: "Stop texting me!!" reads "STOP TEXTING ME". */
function wordsOf(text) {
  return (text ?? "")
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** Whether the reply is one of the words, alone or leading it. */
function leadsWith(words, list) {
  return list.some((word) => words === word || words.startsWith(`${word} `));
}

/** What a chef's reply asks: "stop", "start", "help" or "other". Twilio's own OptOutType counts first. */
function intentOf(body, optOutType) {
  const type = (optOutType ?? "").toUpperCase();
  if (type === "STOP") return "stop";
  const words = wordsOf(body);
  if (leadsWith(words, PROGRAM.optOutWords)) return "stop";
  if (type === "START" || leadsWith(words, PROGRAM.optInWords)) return "start";
  if (type === "HELP" || leadsWith(words, PROGRAM.helpWords)) return "help";
  return "other";
}

function twimlMessage(text) {
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Message>${xmlText(text)}</Message></Response>`;
}

/** The URL with and without a trailing slash, in http and https: how a URL most often differs from the one Twilio signs. */
function spellingsOf(url) {
  if (!url) return [];
  const trimmed = url.replace(/\/+$/, "");
  return [trimmed, `${trimmed}/`].flatMap((spelling) => [
    spelling,
    spelling.replace(/^(https?):/, (_, scheme) => (scheme === "https" ? "http:" : "https:")),
  ]);
}

/**
 * For a request that looks like Twilio's but fails the check: the URL its signature does match, if one of the likely
 * spellings does (TWILIO_INBOUND_URL's and the one n8n was called at). Only a request signed with the auth token
 * matches anything, so a forger cannot choose what this returns.
 */
function urlTwilioSigned(authToken, expected, item, headers, pairs, received) {
  if (!authToken) return undefined;
  const called =
    headers.host && headers["x-forwarded-proto"]
      ? `${headers["x-forwarded-proto"].split(",")[0].trim()}://${headers.host}/webhook/${PROGRAM.inboundPath}`
      : undefined;
  const candidates = [...spellingsOf(expected), ...spellingsOf(item.webhookUrl), ...spellingsOf(called)];
  return candidates.find((candidate) => sameBytes(twilioSignature(authToken, candidate, pairs), received));
}

async function main(helpers) {
  const item = $input.first().json;
  const headers = item.headers ?? {};
  const body = await rawBodyOf(helpers);
  const pairs = formPairs(body);
  const fields = Object.fromEntries(pairs);
  const authToken = setting("TWILIO_AUTH_TOKEN");
  const url = setting("TWILIO_INBOUND_URL");
  const received = Buffer.from(headers["x-twilio-signature"] ?? "", "base64");
  if (!authToken || !url || !sameBytes(twilioSignature(authToken, url, pairs), received)) {
    const refused = { ...answer(403, "Forbidden", "text/plain"), intent: "refused" };
    // Twilio's header and fields: a wrong setting here loses every STOP, so the next node reports it.
    const looksLikeTwilio = received.length > 0 && Boolean(fields.MessageSid && fields.AccountSid && fields.From);
    if (!looksLikeTwilio) return refused;
    const signedUrl = urlTwilioSigned(authToken, url, item, headers, pairs, received);
    // Two kinds, each alerted on its own: a URL that is surely wrong, and failures a forger can cause as well.
    const kind = signedUrl ? "inbound_url" : "signature";
    return {
      ...refused,
      problem: { kind, expected: url ?? "", signedUrl: signedUrl ?? "", tokenSet: Boolean(authToken) },
    };
  }

  const intent = intentOf(fields.Body, fields.OptOutType);
  // Off by default: Twilio answers HELP itself unless its Advanced Opt-Out is told not to, and a chef gets one reply.
  const helpReply = setting("SOUS_HELP_REPLY", "off").toLowerCase() === "on";
  const twiml = answer(200, EMPTY_TWIML, "text/xml");
  if (intent === "help" && helpReply) {
    const supportEmail = setting("SOUS_SUPPORT_EMAIL");
    // Never an example address on a chef's phone: no reply, and the next node reports the missing setting.
    if (!supportEmail) return { ...twiml, intent, problem: { kind: "help_email" } };
    const text = PROGRAM.help.replace(PROGRAM.supportEmailSlot, supportEmail);
    return { ...answer(200, twimlMessage(text), "text/xml"), intent };
  }
  // Only a STOP or a START carries the number on to the next node, which records it at the site, with when it came: the
  // site orders a number's changes by it, however long the call is retried.
  return intent === "stop" || intent === "start"
    ? { ...twiml, intent, phone: fields.From, messageSid: fields.MessageSid, receivedAt: new Date().toISOString() }
    : { ...twiml, intent };
}
