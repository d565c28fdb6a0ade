import "server-only";

export type AttemptResult =
  | { ok: true; status: number; body?: string }
  | { ok: false; reason: "status" | "redirect"; status: number; body?: string }
  | { ok: false; reason: "timeout" | "network" };

// A receiver's answer is read up to this many bytes, when asked: enough for a small JSON answer.
const ANSWER_BYTES = 4_096;

/** The first ANSWER_BYTES of a body, as text: a receiver that streams on is not waited for. */
async function answerOf(response: Response) {
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
 * and replaying a lead elsewhere is not ours to decide). The answer's body is
 * read only when `readAnswer` asks (its first 4 KB), within the same timeout.
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  { readAnswer = false }: { readAnswer?: boolean } = {},
): Promise<AttemptResult> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    // Free the connection without reading a body nobody needs.
    const answer = readAnswer ? { body: await answerOf(response) } : (await response.body?.cancel(), {});
    const { status } = response;
    if (status >= 200 && status < 300) return { ok: true, status, ...answer };
    return { ok: false, reason: status >= 300 && status < 400 ? "redirect" : "status", status, ...answer };
  } catch (error) {
    const timedOut = error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError");
    return { ok: false, reason: timedOut ? "timeout" : "network" };
  }
}
