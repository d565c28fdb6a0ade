import "server-only";

/**
 * The reason a refusing receiver gives: the `error` word of its JSON answer
 * (the workflows answer `{"error": "signature"}`, `{"error":
 * "twilio_refused", "twilioStatus": 401}`), with Twilio's status when it
 * names one. Only a lower-case word and a three-digit status are taken: it
 * goes into log lines and alerts, where nothing else from a body may.
 */
function statedReason(body: string | undefined) {
  let answer: { error?: unknown; twilioStatus?: unknown } | null;
  try {
    answer = JSON.parse(body ?? "") as typeof answer;
  } catch {
    return "";
  }
  const word = answer?.error;
  if (typeof word !== "string" || !/^[a-z][a-z0-9_]{0,39}$/.test(word)) return "";
  const twilio = answer!.twilioStatus;
  const status = Number.isInteger(twilio) && (twilio as number) >= 100 && (twilio as number) <= 599 ? ` ${twilio}` : "";
  return ` ${word}${status}`;
}

/** Why an attempt failed, for the operator: a status or a kind of failure and the receiver's stated reason, never a body. */
export const failureOf = (result: { ok: boolean; reason?: string; status?: number; body?: string }) =>
  result.ok
    ? undefined
    : result.status !== undefined
      ? `${result.reason} ${result.status}${statedReason(result.body)}`
      : result.reason;
