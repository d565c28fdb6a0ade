// Shared by every Code node of the SMS program: `npm run workflow:build` puts
// this file, then the node's own file, into each node of sms-program.json.
// It runs in n8n's Code node sandbox (n8n 1.x, "Run Once for All Items"):
// `$env`, `this.helpers` and `require("crypto")` (NODE_FUNCTION_ALLOW_BUILTIN=crypto)
// are there; URLSearchParams is not. PROGRAM is written in by the build, from
// lib/sms/program.ts.
const crypto = require("crypto");

/** A setting from n8n's environment; blank counts as unset. */
function setting(name, fallback) {
  const value = $env[name];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : fallback;
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

/** An HTTP call that never throws: { status, body } or { status: 0, error } when nothing answered in time. */
async function post(helpers, request) {
  try {
    const response = await helpers.httpRequest({
      ...request,
      method: "POST",
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
