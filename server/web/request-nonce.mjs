// @ts-check
// A page rendered for its request is streamed, so its scripts are not known before its headers go: Next gives them
// the nonce it finds in the request's Content-Security-Policy, set here over whatever a client sent.
import { randomBytes } from "node:crypto";

/** The request header's value: 16 random bytes, base64. */
export function requestNoncePolicy() {
  return `script-src 'nonce-${randomBytes(16).toString("base64")}'`;
}
