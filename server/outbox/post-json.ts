import "server-only";

export type AttemptResult =
  | { ok: true; status: number; body?: string }
  | { ok: false; reason: "status" | "redirect" | "unready"; status: number; body?: string }
  | { ok: false; reason: "timeout" | "network" };

// n8n (1.x and 2.x alike) answers every request, its webhooks' included, 200 with this text while it starts: from
// connecting its database until its migrations are done (abstract-server.js, setupHealthCheck). No workflow ran. A
// restart shows it for up to half a second (0.2 to 0.5 s in tests/e2e/n8n1-cli-upgrade.server.spec.ts's runs), an
// upgrade of n8n whose migrations take minutes for that long.
const N8N_STARTING = "n8n is starting up. Please wait";

// A receiver's answer is read up to this many bytes, when asked: enough for a small JSON answer.
const ANSWER_BYTES = 4_096;

/** The first ANSWER_BYTES of a body, as text: a receiver that streams on is not waited for. */
async function firstBytesOf(response: Response) {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < ANSWER_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel();
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, ANSWER_BYTES));
}

/**
 * One POST of a JSON body. The status decides: 2xx is success, anything
 * else fails. Redirects are not followed (the receiver moved or wants a login,
 * and replaying a lead elsewhere is not ours to decide). The answer's body
 * (its first 4 KB, within the same timeout) is read when `readAnswer` asks,
 * and for every failure: a workflow says there why it refused (failureOf).
 * One 2xx is no success: n8n's own while it starts (an HTML answer, read to
 * tell), "unready", tried again like a 503.
 */
export async function postJson({
  url,
  body,
  headers,
  timeoutMs,
  readAnswer = false,
}: {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  readAnswer?: boolean;
}): Promise<AttemptResult> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    const { status } = response;
    const ok = status >= 200 && status < 300;
    const html = response.headers.get("content-type")?.startsWith("text/html") ?? false;
    // Free the connection without reading a body nobody needs.
    const answer =
      readAnswer || !ok || html ? { body: await firstBytesOf(response) } : (await response.body?.cancel(), {});
    if (ok && answer.body === N8N_STARTING) return { ok: false, reason: "unready", status, body: answer.body };
    if (ok) return { ok: true, status, ...(readAnswer ? answer : {}) };
    return { ok: false, reason: status >= 300 && status < 400 ? "redirect" : "status", status, ...answer };
  } catch (error) {
    const timedOut = error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError");
    return { ok: false, reason: timedOut ? "timeout" : "network" };
  }
}
