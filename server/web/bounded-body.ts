/** A body longer than its route takes: the reading stopped at the limit. */
export class BodyTooLarge extends Error {
  override name = "BodyTooLarge";
}

/**
 * A request's body as text, read no further than `maxBytes` whatever its framing: a Content-Length over the limit is
 * refused before a byte is read, and a chunked body (no length) is read chunk by chunk and dropped as soon as it passes
 * the limit, so a stranger's endless body never sits in memory.
 */
export async function boundedText(request: Request, maxBytes: number) {
  if (Number(request.headers.get("content-length") ?? 0) > maxBytes) throw new BodyTooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
