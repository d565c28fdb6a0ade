import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

/**
 * patches/next+16.4.6.patch (docs/decisions/0003-stylesheet-and-etag.md): a
 * prerendered page's ETag and bytes are computed once per body, not on every
 * request. Fails when an upgrade of Next drops the patch (patch-package also
 * refuses to apply it to another version, at `npm install`).
 */
const require = createRequire(import.meta.url);
type Send = (options: Record<string, unknown>) => Promise<void>;
const { sendRenderResult } = require("next/dist/server/send-payload.js") as { sendRenderResult: Send };
const RenderResult = (require("next/dist/server/render-result.js") as { default: { fromStatic(value: string, contentType: string): unknown } }).default;

function response() {
  const headers = new Map<string, unknown>();
  const sent: { status?: number; body?: unknown } = {};
  return {
    headers,
    sent,
    statusCode: 200,
    finished: false,
    headersSent: false,
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    end(body?: unknown) {
      sent.status = this.statusCode;
      sent.body = body;
      this.finished = true;
    },
  };
}

async function send(html: string, requestHeaders: Record<string, string> = {}) {
  const res = response();
  const result = RenderResult.fromStatic(html, "text/html; charset=utf-8");
  await sendRenderResult({ req: { method: "GET", headers: requestHeaders }, res, result, generateEtags: true, poweredByHeader: false, cacheControl: undefined });
  return res;
}

describe("Next's sendRenderResult, patched", () => {
  // Typographic characters make V8 hold the page as a two-byte string, re-encoded per request unpatched.
  const page = `<!DOCTYPE html><html><body><p>Chefs’ “busy” week — ${"x".repeat(100_000)}</p></body></html>`;

  it("sends the same bytes, computed once, with the same ETag and their length, for the same page", async () => {
    const first = await send(page);
    const second = await send(page.slice(0)); // an equal string, as another request reads it
    expect(Buffer.isBuffer(first.sent.body)).toBe(true);
    expect(second.sent.body).toBe(first.sent.body);
    expect((first.sent.body as Buffer).toString("utf8")).toBe(page);
    expect(first.headers.get("content-length")).toBe(Buffer.byteLength(page));
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
  });

  it("answers a returning browser's If-None-Match with 304 and no body, and another page gets another ETag", async () => {
    const etag = (await send(page)).headers.get("etag") as string;
    const revalidated = await send(page, { "if-none-match": etag });
    expect(revalidated.sent).toEqual({ status: 304, body: undefined });
    const other = await send(`${page}<!-- revalidated an hour later -->`);
    expect(other.headers.get("etag")).not.toBe(etag);
    expect(other.sent.status).toBe(200);
  });
});
