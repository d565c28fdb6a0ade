// @ts-check
/**
 * A nonce for the inline scripts of a page Next renders for this request (a
 * form posted without JavaScript, its errors or outcome in the answer; a
 * console page; a 404 or an error). Such a page is streamed, so its scripts are
 * not known before its headers go; Next gives each of them the nonce it finds
 * in the request's own Content-Security-Policy header, and its patched
 * send-payload answers with the same nonce (server/web/page-policy.ts). Set
 * by middleware.ts, over whatever a client sent under that name.
 */
import { randomBytes } from "node:crypto";

/** The request header's value: 16 random bytes, base64. */
export function requestNoncePolicy() {
  return `script-src 'nonce-${randomBytes(16).toString("base64")}'`;
}
