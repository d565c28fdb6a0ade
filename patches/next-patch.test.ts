import { createRequire } from "node:module";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";

/**
 * patches/next+16.5.0.patch (docs/decisions/0003-stylesheet-and-etag.md): a
 * prerendered page's ETag and bytes are computed once per body, not on every
 * request. Fails when an upgrade of Next drops the patch (patch-package also
 * refuses to apply it to another version, at `npm install`).
 */
const require = createRequire(import.meta.url);
type Send = (options: Record<string, unknown>) => Promise<void>;
const { sendRenderResult } = require("next/dist/server/send-payload.js") as { sendRenderResult: Send };
const RenderResult = (require("next/dist/server/render-result.js") as { default: { fromStatic(value: string, contentType: string): unknown } }).default;

function response(compressing = false) {
  const headers = new Map<string, unknown>();
  const sent: { status?: number; body?: unknown } = {};
  return {
    headers,
    sent,
    statusCode: 200,
    // Next's compression middleware (on unless next.config says compress: false) adds flush().
    ...(compressing ? { flush() {} } : {}),
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

async function send(
  html: string,
  requestHeaders: Record<string, string> = {},
  { compressing = false, method = "GET", contentType = "text/html; charset=utf-8" } = {},
) {
  const res = response(compressing);
  const result = RenderResult.fromStatic(html, contentType);
  await sendRenderResult({ req: { method, headers: requestHeaders }, res, result, generateEtags: true, poweredByHeader: false, cacheControl: undefined });
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

describe("Next's sendRenderResult, patched: the app's rewrite, and each encoding compressed once", () => {
  const transform = Symbol.for("next.renderedBodyTransform");
  afterEach(() => {
    delete (globalThis as Record<symbol, unknown>)[transform];
  });
  const page = (label: string) => `<!DOCTYPE html><html><body><p>${label} ${"Chefs’ week ".repeat(2_000)}</p></body></html>`;

  it("sends the body the registered rewrite made, calling it once per body with its content type", async () => {
    const rewrite = vi.fn((body: string, type: string) => body.replace("<body>", `<body data-type="${type}">`));
    Object.assign(globalThis, { [transform]: rewrite });
    const html = page("rewritten");
    const first = await send(html);
    const second = await send(html.slice(0));
    expect((first.sent.body as Buffer).toString("utf8")).toBe(html.replace("<body>", '<body data-type="text/html; charset=utf-8">'));
    expect(second.sent.body).toBe(first.sent.body);
    expect(rewrite).toHaveBeenCalledTimes(1);
  });

  it("answers br and gzip from bytes compressed once per encoding, with their length, Content-Encoding and Vary", async () => {
    const html = page("compressed");
    const br = await send(html, { "accept-encoding": "gzip, deflate, br" }, { compressing: true });
    const brAgain = await send(html, { "accept-encoding": "br;q=1.0, gzip;q=0.8" }, { compressing: true });
    const gzip = await send(html, { "accept-encoding": "gzip, br;q=0.5" }, { compressing: true });
    const gzipAgain = await send(html, { "accept-encoding": "gzip" }, { compressing: true });
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(brotliDecompressSync(br.sent.body as Buffer).toString("utf8")).toBe(html);
    expect(brAgain.sent.body).toBe(br.sent.body);
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(gzip.sent.body as Buffer).toString("utf8")).toBe(html);
    expect(gzipAgain.sent.body).toBe(gzip.sent.body);
    expect(br.headers.get("content-length")).toBe((br.sent.body as Buffer).length);
    expect((br.sent.body as Buffer).length).toBeLessThan(Buffer.byteLength(html) / 10);
    expect(br.headers.get("vary")).toBe("Accept-Encoding");
    // The validator is the page's: a browser's If-None-Match still gets its 304.
    expect(gzip.headers.get("etag")).toBe(br.headers.get("etag"));
  });

  it("sends the plain bytes when the client refuses both, when compression is off, for a HEAD's length, and below 1 KB", async () => {
    const html = page("plain");
    const refused = await send(html, { "accept-encoding": "br;q=0, gzip;q=0" }, { compressing: true });
    const identity = await send(html, { "accept-encoding": "identity" }, { compressing: true });
    const off = await send(html, { "accept-encoding": "gzip, br" });
    const small = await send("<p>tiny</p>", { "accept-encoding": "gzip, br" }, { compressing: true });
    for (const res of [refused, identity, off]) {
      expect(res.headers.get("content-encoding")).toBeUndefined();
      expect((res.sent.body as Buffer).toString("utf8")).toBe(html);
    }
    expect(small.headers.get("content-encoding")).toBeUndefined();
    const head = await send(html, { "accept-encoding": "br" }, { compressing: true, method: "HEAD" });
    expect(head.headers.get("content-encoding")).toBe("br");
    expect(head.sent.body).toBeNull();
    expect(head.headers.get("content-length")).toBeLessThan(Buffer.byteLength(html) / 10);
  });

  it("leaves a body of another type than text alone", async () => {
    const res = await send(page("binary"), { "accept-encoding": "gzip" }, { compressing: true, contentType: "image/png" });
    expect(res.headers.get("content-encoding")).toBeUndefined();
  });
});

describe("Next's sendRenderResult, patched: the app's headers for a page sent whole, and for one streamed", () => {
  const bodyHeaders = Symbol.for("next.renderedBodyHeaders");
  const streamHeaders = Symbol.for("next.renderedStreamHeaders");
  afterEach(() => {
    delete (globalThis as Record<symbol, unknown>)[bodyHeaders];
    delete (globalThis as Record<symbol, unknown>)[streamHeaders];
  });

  it("sets the headers the app derives from a body, derived once per body, on every answer of it", async () => {
    const derive = vi.fn((body: string, type: string) => ({ "Content-Security-Policy": `hash of ${body.length} ${type}` }));
    Object.assign(globalThis, { [bodyHeaders]: derive });
    const html = `<p>headers ${"x".repeat(2_000)}</p>`;
    const first = await send(html);
    const second = await send(html.slice(0));
    const revalidated = await send(html, { "if-none-match": first.headers.get("etag") as string });
    for (const res of [first, second, revalidated])
      expect(res.headers.get("content-security-policy")).toBe(`hash of ${html.length} text/html; charset=utf-8`);
    expect(derive).toHaveBeenCalledTimes(1);
  });

  it("sets the headers the app derives from the request of a streamed page, and not those of a body", async () => {
    const fromRequest = vi.fn((headers: Record<string, string>, type: string) => ({ "Content-Security-Policy": `${headers["content-security-policy"]} ${type}` }));
    const fromBody = vi.fn(() => ({ "Content-Security-Policy": "from a body" }));
    Object.assign(globalThis, { [streamHeaders]: fromRequest, [bodyHeaders]: fromBody });
    const res = response();
    const piped: unknown[] = [];
    const result = { isDynamic: true, contentType: "text/html; charset=utf-8", pipeToNodeResponse: async (to: unknown) => void piped.push(to) };
    await sendRenderResult({
      req: { method: "POST", headers: { "content-security-policy": "script-src 'nonce-abc'" } },
      res,
      result,
      generateEtags: true,
      poweredByHeader: false,
      cacheControl: undefined,
    });
    expect(res.headers.get("content-security-policy")).toBe("script-src 'nonce-abc' text/html; charset=utf-8");
    expect(piped).toEqual([res]);
    expect(fromBody).not.toHaveBeenCalled();
    // A page sent whole takes the body's headers, never the request's.
    const whole = await send(`<p>whole ${"y".repeat(2_000)}</p>`);
    expect(whole.headers.get("content-security-policy")).toBe("from a body");
    expect(fromRequest).toHaveBeenCalledTimes(1);
  });

  it("sets no header when the app registered none", async () => {
    expect((await send(`<p>none ${"z".repeat(2_000)}</p>`)).headers.has("content-security-policy")).toBe(false);
  });
});
