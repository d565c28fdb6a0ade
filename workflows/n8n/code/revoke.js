// The "Record the STOP" node of "Sous: incoming texts", run after Twilio has
// its answer: tells the site that the number revoked its consent, so the
// record shows when consent ended and a sign-up still waiting is never sent.
// The call is retried while the site fails; a STOP that still cannot be
// recorded is reported (without the number) and fails the execution.

const ATTEMPT_TIMEOUT_MS = 10_000;
// Seconds between attempts: SOUS_REVOKE_RETRY_SECONDS, e.g. "2 10 30 60 120" (the default, about 3.7 minutes).
const DEFAULT_RETRY_SECONDS = "2 10 30 60 120";

function retryDelays() {
  const delays = setting("SOUS_REVOKE_RETRY_SECONDS", DEFAULT_RETRY_SECONDS)
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
  return delays.every((delay) => Number.isFinite(delay) && delay >= 0 && delay <= 3_600)
    ? delays
    : DEFAULT_RETRY_SECONDS.split(" ").map(Number);
}

/** One signed call to /api/consent/revoke: "recorded", "retry" (the site or the network failed) or "refused". */
async function revokeOnce(helpers, site, secrets, id, payload) {
  const response = await post(helpers, {
    url: `${site}/api/consent/revoke`,
    body: payload,
    headers: {
      "content-type": "application/json",
      ...standardHeaders(secrets, id, payload, Math.floor(Date.now() / 1000)),
    },
    timeout: ATTEMPT_TIMEOUT_MS,
  });
  if (response.status >= 200 && response.status < 300)
    return { outcome: "recorded", status: response.status, body: response.body };
  const retry = response.status === 0 || response.status === 408 || response.status === 429 || response.status >= 500;
  return { outcome: retry ? "retry" : "refused", status: response.status, error: response.error };
}

async function alert(helpers, text) {
  const url = setting("SOUS_ALERT_WEBHOOK_URL");
  if (!url) return "not set";
  const sent = await post(helpers, {
    url,
    body: JSON.stringify({ text }),
    headers: { "content-type": "application/json" },
    timeout: ATTEMPT_TIMEOUT_MS,
  });
  return sent.status >= 200 && sent.status < 300 ? "sent" : `failed (${sent.status || sent.error})`;
}

async function main(helpers) {
  const job = $input.first().json;
  if (job.intent !== "stop") return [];
  const site = setting("SOUS_SITE_URL", "").replace(/\/+$/, "");
  const secrets = secretsOf(setting("CONSENT_WEBHOOK_SECRET"));
  const id = job.messageSid || `stop_${$execution.id}`;
  const payload = JSON.stringify({ phone: job.phone, channel: "sms" });

  const delays = retryDelays();
  let last = { outcome: "refused", status: 0, error: "SOUS_SITE_URL or CONSENT_WEBHOOK_SECRET is not set" };
  let attempts = 0;
  if (site && secrets.length > 0) {
    for (let attempt = 0; attempt <= delays.length; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, delays[attempt - 1] * 1000));
      attempts += 1;
      last = await revokeOnce(helpers, site, secrets, id, payload);
      if (last.outcome !== "retry") break;
    }
  }
  if (last.outcome === "recorded") return [{ json: { recorded: true, attempts, site: last.body } }];

  // No phone number here: the alert goes to a chat channel. The number is in this execution's data.
  const why = last.status ? `HTTP ${last.status}` : last.error;
  const text =
    `Sous SMS workflow: a STOP reply could not be recorded at the site (${why}, ${attempts} attempt${attempts === 1 ? "" : "s"}). ` +
    `Twilio stops texting the number on its own, but the site still counts the consent in force. ` +
    `Open n8n execution ${$execution.id} (Twilio message ${job.messageSid || "unknown"}) for the number and record it with npm run consent -- revoke.`;
  const alerted = await alert(helpers, text);
  throw new Error(
    `The STOP (Twilio message ${job.messageSid || "unknown"}) was not recorded at the site: ${why} after ${attempts} attempt(s); alert ${alerted}.`,
  );
}
