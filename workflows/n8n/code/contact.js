// The "Verify and post" node of "Sous: contact requests": each quote request is posted once, with every field, to the
// operator's chat (SOUS_CONTACT_CHAT_URL: any webhook taking {"text": …}), the one place they belong. The Respond to
// Webhook node after it sends the answer decided here.

// The chat's answer must come well before the site gives up on the attempt (WEBHOOK_ATTEMPT_TIMEOUT_MS, 4 s by
// default), so the site always hears ours.
const CHAT_TIMEOUT_MS = 2_500;

/**
 * What a visitor typed, as plain text in a chat message: Slack's control characters escaped (no <!channel>, no link of
 * the visitor's making), every mention that Discord or Slack would ping broken by a zero-width space (@everyone_ops
 * too), control and format characters gone (line feeds stay).
 */
function chatText(value) {
  return String(value ?? "")
    .replace(/[^\P{Cc}\n]|\p{Cf}/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/@(?=everyone|here|channel)/gi, "@\u200b");
}

/**
 * The chat message: a title, then one line per field in the form's order and words; the message (last) on lines of its
 * own, each quoted ("> "), so no line a visitor wrote can pose as one of the labels ("Email: …"). A one-line field is
 * kept on its line.
 */
function messageOf(request) {
  const lines = PROGRAM.contact.fields.map(([name, label]) => {
    const text = chatText(request[name]);
    if (name === "message") return `${label}:\n${text ? text.replace(/^/gm, "> ") : "-"}`;
    return `${label}: ${text.replace(/\n/g, " ") || "-"}`;
  });
  return [PROGRAM.contact.title, ...lines].join("\n");
}

async function main(helpers) {
  const item = $input.first().json;
  const body = await rawBodyOf(helpers);
  const nowSeconds = Math.floor(Date.now() / 1000);
  const verified = verifyStandardWebhook(
    item.headers ?? {},
    body,
    secretsOf(setting("SOUS_CONTACT_WEBHOOK_SECRETS")),
    nowSeconds,
  );
  if (!verified.ok) return answer(401, { error: verified.reason });

  let request;
  try {
    request = JSON.parse(body);
  } catch {
    request = undefined;
  }
  if (!request || typeof request.name !== "string" || typeof request.email !== "string")
    return answer(400, { error: "request" });

  const posted = remembered("posted", nowSeconds);
  if (posted[verified.id]) return answer(200, { posted: true, duplicate: true });

  const chat = setting("SOUS_CONTACT_CHAT_URL");
  if (!chat) return answer(503, { posted: false, error: "chat_not_configured" });
  const sent = await post(helpers, {
    url: chat,
    body: JSON.stringify({ text: messageOf(request) }),
    headers: { "content-type": "application/json" },
    timeout: CHAT_TIMEOUT_MS,
  });
  // Anything but a 2xx is on the operator's side (chat down, wrong address): the site keeps the request and redelivers.
  if (sent.status < 200 || sent.status >= 300)
    return answer(503, {
      posted: false,
      error: sent.status ? "chat_refused" : "chat_unreachable",
      chatStatus: sent.status || undefined,
    });
  posted[verified.id] = { at: nowSeconds };
  return answer(200, { posted: true });
}
