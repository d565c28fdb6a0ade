/**
 * The API routes' answers: never cached, and each names its charset, as every
 * text response of the site does.
 */
export function jsonAnswer(
  body: unknown,
  { status = 200, headers = {} }: { status?: number; headers?: HeadersInit } = {},
) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

export function plainAnswer(status: number, text: string, headers: Record<string, string> = {}) {
  return new Response(text, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}
