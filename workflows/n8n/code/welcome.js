// The "Verify and text" node of "Sous: welcome text": each sign-up the site
// delivers to /webhook/sous-waitlist gets one welcome text. Every answer is
// decided here and sent by the Respond to Webhook node after it.

// Twilio's answer must come well before the site gives up on the attempt
// (WEBHOOK_ATTEMPT_TIMEOUT_MS, 4 s by default), so the site always hears ours.
const TWILIO_TIMEOUT_MS = 2_500;

// Twilio refuses these for the number itself: no redelivery can change that.
// 21211 invalid number, 21214 and 21612 not reachable by SMS, 21217 not a
// valid number, 21610 the number replied STOP to this sender, 21614 not a mobile.
const NUMBER_REFUSED = [21211, 21214, 21217, 21610, 21612, 21614];

/** One Twilio Messages API call: accepted, refused for the number, or unavailable (the operator's side). */
async function sendText(helpers, to, body) {
  const sid = setting("TWILIO_ACCOUNT_SID");
  const token = setting("TWILIO_AUTH_TOKEN");
  const from = setting("TWILIO_FROM");
  if (!sid || !token || !from) return { outcome: "unavailable", reason: "twilio_not_configured" };
  const base = setting("TWILIO_API_BASE", "https://api.twilio.com").replace(/\/+$/, "");
  const sender = from.startsWith("MG") ? { MessagingServiceSid: from } : { From: from };
  const response = await post(helpers, {
    url: `${base}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`,
    body: formEncode({ To: to, ...sender, Body: body }),
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    auth: { username: sid, password: token },
    timeout: TWILIO_TIMEOUT_MS,
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

async function main(helpers) {
  const item = $input.first().json;
  const headers = item.headers ?? {};
  const body = await rawBodyOf(helpers);
  const nowSeconds = Math.floor(Date.now() / 1000);

  const verified = verifyStandardWebhook(headers, body, secretsOf(setting("SOUS_WEBHOOK_SECRETS")), nowSeconds);
  if (!verified.ok) return answer(401, { error: verified.reason });

  let phone;
  try {
    phone = JSON.parse(body).phone;
  } catch {
    phone = undefined;
  }
  if (typeof phone !== "string" || !/^\+[1-9]\d{7,14}$/.test(phone)) return answer(400, { error: "phone" });

  const texted = remembered("texted", nowSeconds);
  const earlier = texted[verified.id];
  if (earlier) return answer(200, { texted: earlier.texted, duplicate: true });

  const sent = await sendText(helpers, phone, PROGRAM.welcome);
  if (sent.outcome === "unavailable") {
    return answer(503, { texted: false, error: sent.reason, twilioStatus: sent.twilioStatus, code: sent.code });
  }
  const outcome = sent.outcome === "accepted" ? { texted: true } : { texted: false, code: sent.code };
  texted[verified.id] = { at: nowSeconds, ...outcome };
  return answer(200, outcome);
}
