import type { AttemptResult } from "@/server/webhooks/post-json";

/** Why an attempt failed, for the operator: a status or a kind of failure, never a body. */
export function failureOf(result: AttemptResult | { ok: false; reason: string; status?: number }) {
  if (result.ok) return undefined;
  return "status" in result && result.status !== undefined ? `${result.reason} ${result.status}` : result.reason;
}
