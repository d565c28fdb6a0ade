// The "Read the message" node of "Sous: incoming texts": Twilio posts every
// message a chef sends to /webhook/sous-sms-inbound. This node checks that
// Twilio signed it, reads what the chef asked, and decides the TwiML answer;
// a STOP is then recorded at the site by the next node, after Twilio has its answer.

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

async function main(helpers) {
  const headers = $input.first().json.headers ?? {};
  const body = await rawBodyOf(helpers);
  const pairs = formPairs(body);
  const authToken = setting("TWILIO_AUTH_TOKEN");
  const url = setting("TWILIO_INBOUND_URL");
  const received = Buffer.from(headers["x-twilio-signature"] ?? "", "base64");
  if (!authToken || !url || !sameBytes(twilioSignature(authToken, url, pairs), received)) {
    return { ...answer(403, "Forbidden", "text/plain"), intent: "forged" };
  }

  const fields = Object.fromEntries(pairs);
  const intent = intentOf(fields.Body, fields.OptOutType);
  const helpReply = setting("SOUS_HELP_REPLY", "on").toLowerCase() !== "off";
  if (intent === "help" && helpReply) {
    const text = PROGRAM.help.replace(PROGRAM.supportEmailSlot, setting("SOUS_SUPPORT_EMAIL", "support@example.com"));
    return { ...answer(200, twimlMessage(text), "text/xml"), intent };
  }
  const twiml = answer(200, EMPTY_TWIML, "text/xml");
  // Only a STOP carries the number on to the next node, which records it at the site.
  return intent === "stop"
    ? { ...twiml, intent, phone: fields.From, messageSid: fields.MessageSid }
    : { ...twiml, intent };
}
