// The "Record STOP or START" node of "Sous: incoming texts": tells the site a number revoked its consent or asked to
// rejoin, one attempt per run. While the site fails, the "Wait before retrying" node waits (n8n's wait survives a
// restart; a sleep here would be cut by N8N_RUNNERS_TASK_TIMEOUT); once the schedule is spent it is reported, unnamed.

// One attempt plus the alert stays far inside n8n's task time limit (60 s announced).
const ATTEMPT_TIMEOUT_MS = 8_000;
// Seconds between attempts: SOUS_REVOKE_RETRY_SECONDS. The default retries for a little over an hour.
const DEFAULT_RETRY_SECONDS = "2 10 30 60 120 300 600 900 1800";

// What each reply becomes at the site: its route, its body, and what the operator is told when it is lost.
const CALLS = {
  stop: {
    word: "STOP",
    path: "/api/consent/revoke",
    body: (phone, receivedAt) => ({ type: "consent.revoke", phone, channel: "sms", receivedAt }),
    lost:
      "Twilio stops texting the number on its own, but the site still counts the consent in force. " +
      "Open n8n execution {execution} (Twilio message {sid}) for the number and record it with npm run consent -- revoke.",
  },
  start: {
    word: "START",
    path: "/api/consent/renew",
    body: (phone, receivedAt) => ({ type: "consent.renew", phone, receivedAt }),
    lost:
      "The site still counts the number's consent revoked, and a sign-up waiting for this START stays unsent. " +
      "Retry n8n execution {execution} (Twilio message {sid}) once the site answers.",
  },
};

function retryDelays() {
  const delays = setting("SOUS_REVOKE_RETRY_SECONDS", DEFAULT_RETRY_SECONDS)
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
  return delays.every((delay) => Number.isFinite(delay) && delay >= 0 && delay <= 86_400)
    ? delays
    : DEFAULT_RETRY_SECONDS.split(" ").map(Number);
}

/** One signed call to the site: "recorded", "retry" (the site or the network failed) or "refused". */
async function callOnce(helpers, url, secrets, id, payload) {
  const response = await post(helpers, {
    url,
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

async function main(helpers) {
  const job = $input.first().json;
  const call = CALLS[job.intent];
  if (!call) return [];
  const site = setting("SOUS_SITE_URL", "").replace(/\/+$/, "");
  const secrets = secretsOf(setting("CONSENT_WEBHOOK_SECRET"));
  // Every attempt under one webhook-id, so the site records the reply once however many arrive.
  const id = job.messageSid || `${job.intent}_${$execution.id}`;
  const attempts = (job.attempts ?? 0) + 1;
  // What goes round the loop: the reply and how many attempts it has had.
  const reply = {
    intent: job.intent,
    phone: job.phone,
    messageSid: job.messageSid,
    receivedAt: job.receivedAt,
    attempts,
  };
  const payload = JSON.stringify(call.body(job.phone, job.receivedAt));

  const last =
    site && secrets.length > 0
      ? await callOnce(helpers, `${site}${call.path}`, secrets, id, payload)
      : { outcome: "refused", status: 0, error: "SOUS_SITE_URL or CONSENT_WEBHOOK_SECRET is not set" };
  const delays = retryDelays();
  const why = last.status ? `HTTP ${last.status}` : last.error;
  if (last.outcome === "recorded") return [{ json: { ...reply, retry: false, recorded: true, site: last.body } }];
  if (last.outcome === "retry" && attempts <= delays.length) {
    return [{ json: { ...reply, retry: true, waitSeconds: delays[attempts - 1], lastFailure: why } }];
  }

  // No phone number here: the alert goes to a chat channel. The number is in this execution's data.
  const sid = job.messageSid || "unknown";
  const text =
    `Sous SMS workflow: a ${call.word} reply could not be recorded at the site (${why}, ${attempts} attempt${attempts === 1 ? "" : "s"}). ` +
    call.lost.replace("{execution}", $execution.id).replace("{sid}", sid);
  const alerted = await alert(helpers, text);
  throw new Error(
    `The ${call.word} (Twilio message ${sid}) was not recorded at the site: ${why} after ${attempts} attempt(s); alert ${alerted}.`,
  );
}
