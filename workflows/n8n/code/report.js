// The "Report a wrong setting" node of "Sous: incoming texts": a setting that drops what a chef sent goes to
// SOUS_ALERT_WEBHOOK_URL once per SOUS_ALERT_INTERVAL_MINUTES per kind, with the messages it cost, never a number.
// Without an alert channel the execution fails instead, so n8n's list shows it red.

const DEFAULT_INTERVAL_MINUTES = 60;

function intervalSeconds() {
  const minutes = Number(setting("SOUS_ALERT_INTERVAL_MINUTES", String(DEFAULT_INTERVAL_MINUTES)));
  return (Number.isFinite(minutes) && minutes >= 1 ? minutes : DEFAULT_INTERVAL_MINUTES) * 60;
}

function problemText(problem, count, sinceSeconds) {
  const times = `${count} message${count === 1 ? "" : "s"} since ${new Date(sinceSeconds * 1000).toISOString()}`;
  if (problem.kind === "help_email") {
    return (
      `Sous SMS workflow: HELP went unanswered (${times}): SOUS_HELP_REPLY is on but SOUS_SUPPORT_EMAIL is not set. ` +
      `Set SOUS_SUPPORT_EMAIL (the site's BUSINESS_SUPPORT_EMAIL) and restart n8n, or set SOUS_HELP_REPLY=off where Twilio answers HELP.`
    );
  }
  const expected = problem.expected ? `TWILIO_INBOUND_URL is ${problem.expected}` : "TWILIO_INBOUND_URL is not set";
  if (problem.signedUrl) {
    return (
      `Sous SMS workflow: Twilio's messages are refused with 403 (${times}): Twilio signs them for ${problem.signedUrl}, but ${expected}. ` +
      `Every STOP is lost until they match character for character: set TWILIO_INBOUND_URL=${problem.signedUrl} in n8n's environment and restart n8n.`
    );
  }
  const token = problem.tokenSet ? "" : " TWILIO_AUTH_TOKEN is not set.";
  return (
    `Sous SMS workflow: requests that look like Twilio's failed the signature check and were refused with 403 (${times}).${token} ` +
    `If Twilio sent them, every STOP is lost: the workflow expects the URL set in Twilio for incoming messages, character for character (${expected}), ` +
    `and TWILIO_AUTH_TOKEN must be the account's primary auth token. A forged request looks the same; this alert comes at most once per interval.`
  );
}

async function main(helpers) {
  const { problem } = $input.first().json;
  if (!problem) return [];
  const nowSeconds = Math.floor(Date.now() / 1000);
  const store = $getWorkflowStaticData("global");
  const problems = (store.problems = store.problems ?? {});
  const seen = (problems[problem.kind] = problems[problem.kind] ?? { count: 0, since: nowSeconds, reportedAt: 0 });
  seen.count += 1;
  if (seen.reportedAt && nowSeconds - seen.reportedAt < intervalSeconds()) {
    return [{ json: { kind: problem.kind, reported: false, countedSinceReport: seen.count } }];
  }
  const text = problemText(problem, seen.count, seen.since);
  const sent = await alert(helpers, text);
  if (sent !== "sent") throw new Error(`${text} (alert ${sent})`);
  problems[problem.kind] = { count: 0, since: nowSeconds, reportedAt: nowSeconds };
  return [{ json: { kind: problem.kind, reported: true } }];
}
