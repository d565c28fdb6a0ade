import "server-only";

export type AttemptResult =
  | { ok: true; status: number }
  | { ok: false; reason: "status" | "redirect"; status: number }
  | { ok: false; reason: "timeout" | "network" };

/**
 * One POST of a JSON body. Only the status is read: 2xx is success, anything
 * else fails. Redirects are not followed (the receiver moved or wants a login,
 * and replaying a lead elsewhere is not ours to decide).
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
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
    await response.body?.cancel();
    const { status } = response;
    if (status >= 200 && status < 300) return { ok: true, status };
    return { ok: false, reason: status >= 300 && status < 400 ? "redirect" : "status", status };
  } catch (error) {
    const timedOut = error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError");
    return { ok: false, reason: timedOut ? "timeout" : "network" };
  }
}
