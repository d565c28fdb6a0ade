// Helpers the Code nodes share: the build puts into each node the ones it calls. It runs in n8n's Code node sandbox on
// 1.x and 2.x (`$env` or `$vars`, `this.helpers`, `require("crypto")`; no URLSearchParams). No task may outlast
// N8N_RUNNERS_TASK_TIMEOUT: every wait between attempts is a Wait node's.
const crypto = (() => {
  try {
    return require("crypto");
  } catch (error) {
    throw new Error(`${error.message}: set NODE_FUNCTION_ALLOW_BUILTIN=crypto in n8n's environment`);
  }
})();

/** One source of settings, read without throwing: undefined where it does not exist or may not be read. */
function readFrom(source, name) {
  try {
    const value = source()[name];
    return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A setting: n8n's environment ($env) on a self-hosted n8n, else its Variables
 * ($vars, n8n Cloud's only place); blank is unset. Where neither can be read
 * (n8n 2.x blocks $env by default), the node fails saying so.
 */
function setting(name, fallback) {
  const fromEnv = readFrom(() => $env, name);
  if (fromEnv !== undefined) return fromEnv;
  const fromVars = readFrom(() => (typeof $vars === "undefined" ? {} : $vars), name);
  if (fromVars !== undefined) return fromVars;
  if (!envReadable() && !varsHoldSettings()) {
    throw new Error(
      "The workflow cannot read its settings: n8n blocks $env in Code nodes. Set N8N_BLOCK_ENV_ACCESS_IN_NODE=false in n8n's environment (or define the settings as n8n Variables).",
    );
  }
  return fallback;
}

function envReadable() {
  try {
    void $env.N8N_BLOCK_ENV_ACCESS_IN_NODE;
    return true;
  } catch {
    return false;
  }
}

function varsHoldSettings() {
  try {
    return typeof $vars !== "undefined" && Object.keys($vars).some((name) => /^(SOUS|TWILIO|CONSENT)_/.test(name));
  } catch {
    return false;
  }
}

/** Whether two byte strings are equal, in time that does not depend on where they differ. */
function sameBytes(a, b) {
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** The exact bytes the Webhook node received (its Raw Body option), as text. */
async function rawBodyOf(helpers) {
  try {
    return (await helpers.getBinaryDataBuffer(0, "data")).toString("utf8");
  } catch {
    return "";
  }
}

/** Standard Webhooks' HMAC-SHA256 of "id.timestamp.body", keyed with the secret's bytes after whsec_. */
function standardSignature(secret, id, timestamp, body) {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return crypto.createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
}

function secretsOf(list) {
  return (list ?? "").split(/\s+/).filter(Boolean);
}

/**
 * Checks a Standard Webhooks delivery against every secret in force: the
 * signature over the raw body, and a timestamp within five minutes.
 */
function verifyStandardWebhook(headers, body, secrets, nowSeconds) {
  const id = headers["webhook-id"] ?? "";
  const timestamp = headers["webhook-timestamp"] ?? "";
  if (!id || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "unsigned" };
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return { ok: false, reason: "stale" };
  const received = (headers["webhook-signature"] ?? "")
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => Buffer.from(entry.slice(3), "base64"));
  const expected = secrets.map((secret) => standardSignature(secret, id, timestamp, body));
  const matches = received.some((signature) => expected.some((wanted) => sameBytes(wanted, signature)));
  return matches ? { ok: true, id } : { ok: false, reason: "signature" };
}

/** Standard Webhooks headers for a body, one `v1,` signature per secret (so a rotation works). */
function standardHeaders(secrets, id, body, nowSeconds) {
  const timestamp = String(nowSeconds);
  const signatures = secrets.map((secret) => `v1,${standardSignature(secret, id, timestamp, body).toString("base64")}`);
  return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signatures.join(" ") };
}

/** A form-encoded body as [name, value] pairs, decoded as browsers and Twilio encode them. */
function formPairs(body) {
  const decode = (text) => {
    try {
      return decodeURIComponent(text.replace(/\+/g, " "));
    } catch {
      return text;
    }
  };
  return body
    .split("&")
    .filter(Boolean)
    .map((part) => {
      const equals = part.indexOf("=");
      return equals < 0 ? [decode(part), ""] : [decode(part.slice(0, equals)), decode(part.slice(equals + 1))];
    });
}

/** Form-encodes fields (the sandbox has no URLSearchParams). */
function formEncode(fields) {
  return Object.entries(fields)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join("&");
}

/** Text for XML, so a message can never be markup. */
function xmlText(text) {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** What the Respond to Webhook node answers: the status, the body and its type, decided here. */
function answer(status, body, contentType = "application/json") {
  return { status, contentType, responseBody: typeof body === "string" ? body : JSON.stringify(body) };
}

/** An HTTP POST that never throws: { status, body } or { status: 0, error } when nothing answered in time. */
function post(helpers, request) {
  return call(helpers, { ...request, method: "POST" });
}

/** An HTTP call that never throws: { status, body } or { status: 0, error } when nothing answered in time. */
async function call(helpers, request) {
  try {
    const response = await helpers.httpRequest({
      ...request,
      returnFullResponse: true,
      ignoreHttpStatusErrors: true,
    });
    let body = response.body;
    if (typeof body === "string" || Buffer.isBuffer(body)) {
      try {
        body = JSON.parse(body.toString());
      } catch {
        body = body.toString();
      }
    }
    return { status: response.statusCode, body };
  } catch (error) {
    return { status: 0, error: error && error.code ? error.code : "no answer" };
  }
}

/**
 * Ids already handled, kept in the workflow's static data under `key`: longer than the site's redelivery schedule (37.6
 * h by default), and never more than 10,000 ids.
 */
function remembered(key, nowSeconds) {
  const REMEMBER_SECONDS = 7 * 86_400;
  const REMEMBER_AT_MOST = 10_000;
  const store = $getWorkflowStaticData("global");
  const ids = (store[key] = store[key] ?? {});
  for (const id of Object.keys(ids)) if (nowSeconds - ids[id].at > REMEMBER_SECONDS) delete ids[id];
  const left = Object.keys(ids).sort((a, b) => ids[a].at - ids[b].at);
  for (const id of left.slice(0, Math.max(0, left.length - REMEMBER_AT_MOST + 1))) delete ids[id];
  return ids;
}

/** Reports to SOUS_ALERT_WEBHOOK_URL as {"text": …}: "sent", "not set" or why it failed. Never a phone number in `text`. */
async function alert(helpers, text) {
  const url = setting("SOUS_ALERT_WEBHOOK_URL");
  if (!url) return "not set";
  const sent = await post(helpers, {
    url,
    body: JSON.stringify({ text }),
    headers: { "content-type": "application/json" },
    timeout: 5_000,
  });
  return sent.status >= 200 && sent.status < 300 ? "sent" : `failed (${sent.status || sent.error})`;
}

// Twilio's answer must come well before the site gives up on the attempt (WEBHOOK_ATTEMPT_TIMEOUT_MS, 4 s by default),
// so the site always hears ours.
const TWILIO_TIMEOUT_MS = 2_500;

// Twilio refuses these for the number itself: no redelivery can change that. 21211 invalid number, 21214 and 21612 not
// reachable by SMS, 21217 not a valid number, 21610 the number replied STOP to this sender, 21614 not a mobile.
const NUMBER_REFUSED = [21211, 21214, 21217, 21610, 21612, 21614];

/** The Twilio account the texts go out from, or undefined where a setting is missing. */
function twilioAccount() {
  const sid = setting("TWILIO_ACCOUNT_SID");
  const token = setting("TWILIO_AUTH_TOKEN");
  const from = setting("TWILIO_FROM");
  if (!sid || !token || !from) return undefined;
  const base = setting("TWILIO_API_BASE", "https://api.twilio.com").replace(/\/+$/, "");
  return {
    messages: `${base}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`,
    auth: { username: sid, password: token },
    sender: from.startsWith("MG") ? { MessagingServiceSid: from } : { From: from },
  };
}

/** One Twilio Messages API call from `account` (twilioAccount()): accepted, refused for the number, or unavailable (the operator's side). */
async function sendText(helpers, account, to, body, timeout) {
  if (!account) return { outcome: "unavailable", reason: "twilio_not_configured" };
  const response = await post(helpers, {
    url: account.messages,
    body: formEncode({ To: to, ...account.sender, Body: body }),
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    auth: account.auth,
    timeout,
  });
  if (response.status >= 200 && response.status < 300) return { outcome: "accepted", messageSid: response.body?.sid };
  const code = typeof response.body?.code === "number" ? response.body.code : undefined;
  if (response.status === 400 && NUMBER_REFUSED.includes(code)) return { outcome: "refused", code };
  return {
    outcome: "unavailable",
    reason: response.status ? "twilio_refused" : "twilio_unreachable",
    twilioStatus: response.status || undefined,
    code,
  };
}

// The lookup before a redelivery's text gets this much of TWILIO_TIMEOUT_MS; the text gets the rest.
const LOOKUP_TIMEOUT_MS = 1_000;

// Twilio's clock and the site's may differ by this much.
const CLOCK_SLACK_SECONDS = 60;

/**
 * Whether Twilio took this text for this number since `sinceSeconds`, from the account's list (undefined: it did not
 * say). Asked before a redelivery: an earlier attempt may have been texted without anyone hearing of it.
 */
async function textedSince(helpers, account, to, body, sinceSeconds) {
  const filters = { To: to, ...(account.sender.From ? { From: account.sender.From } : {}), PageSize: "50" };
  const response = await call(helpers, {
    method: "GET",
    url: `${account.messages}?${formEncode(filters)}`,
    headers: { accept: "application/json" },
    auth: account.auth,
    timeout: LOOKUP_TIMEOUT_MS,
  });
  const messages = response.body?.messages;
  if (response.status !== 200 || !Array.isArray(messages)) return undefined;
  const since = (sinceSeconds - CLOCK_SLACK_SECONDS) * 1000;
  return messages.some(
    (message) =>
      message?.body === body &&
      String(message.direction ?? "").startsWith("outbound") &&
      Date.parse(message.date_created) >= since,
  );
}

/** When the site says an earlier attempt under this webhook-id may have been texted: from when, in seconds. */
function redeliverySince(headers) {
  const since = headers["sous-redelivery-since"] ?? "";
  return /^\d{1,12}$/.test(since) ? Number(since) : undefined;
}

/**
 * The welcome's and the invitation's contract: the signature checked, one text per webhook-id; 2xx texted, 2xx
 * texted: false with the carrier's code, 503 when Twilio fails. A redelivery not remembered is texted only if Twilio
 * has no such message since `sous-redelivery-since`.
 */
async function textOnce(helpers, { secrets, remember, textOf }) {
  const item = $input.first().json;
  const headers = item.headers ?? {};
  const body = await rawBodyOf(helpers);
  const nowSeconds = Math.floor(Date.now() / 1000);

  const verified = verifyStandardWebhook(headers, body, secretsOf(setting(secrets)), nowSeconds);
  if (!verified.ok) return answer(401, { error: verified.reason });

  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = {};
  }
  const phone = parsed?.phone;
  if (typeof phone !== "string" || !/^\+[1-9]\d{7,14}$/.test(phone)) return answer(400, { error: "phone" });
  const text = textOf(parsed);
  if (typeof text !== "string" || !text) return answer(400, { error: "text" });

  const texted = remembered(remember, nowSeconds);
  const earlier = texted[verified.id];
  if (earlier) return answer(200, { texted: earlier.texted, duplicate: true });

  // A redelivery this workflow has no record of: Twilio's own list says whether an earlier attempt got through.
  const since = redeliverySince(headers);
  const account = twilioAccount();
  let timeout = TWILIO_TIMEOUT_MS;
  if (since !== undefined && account) {
    const asked = Date.now();
    const found = await textedSince(helpers, account, phone, text, since);
    if (found === undefined) return answer(503, { texted: false, error: "twilio_lookup_failed" });
    if (found) {
      texted[verified.id] = { at: nowSeconds, texted: true };
      return answer(200, { texted: true, duplicate: true });
    }
    timeout = Math.max(TWILIO_TIMEOUT_MS - (Date.now() - asked), TWILIO_TIMEOUT_MS - LOOKUP_TIMEOUT_MS);
  }

  const sent = await sendText(helpers, account, phone, text, timeout);
  if (sent.outcome === "unavailable") {
    return answer(503, { texted: false, error: sent.reason, twilioStatus: sent.twilioStatus, code: sent.code });
  }
  const outcome = sent.outcome === "accepted" ? { texted: true } : { texted: false, code: sent.code };
  texted[verified.id] = { at: nowSeconds, ...outcome };
  return answer(200, outcome);
}
