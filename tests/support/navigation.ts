/**
 * Where a server action or a page's check leads, read from what Next's own
 * redirect() and notFound() throw outside a request: their digest,
 * "NEXT_REDIRECT;<type>;<url>;<status>;" or "NEXT_HTTP_ERROR_FALLBACK;404".
 * The path of a redirect, "404" for notFound(), "no redirect" when it
 * returned; anything else thrown is thrown again.
 */
export async function whereLeads(promise: Promise<unknown>): Promise<string> {
  const thrown = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (thrown === undefined) return "no redirect";
  const digest = (thrown as { digest?: unknown }).digest;
  if (typeof digest === "string" && digest.startsWith("NEXT_REDIRECT;")) return digest.split(";")[2]!;
  if (digest === "NEXT_HTTP_ERROR_FALLBACK;404") return "404";
  throw thrown;
}
