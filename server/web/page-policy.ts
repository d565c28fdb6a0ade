import { createHash } from "node:crypto";
import { contentSecurityPolicy } from "./security-headers";

// A page sent whole allows exactly its own inline scripts by their sha256 (decision 0011): the text between
// `<script …>` and `</script>` as it stands (no entity decoded), UTF-8 encoded.

/** The text of every `<script>` without a `src`, in order: one scan, no pattern that backtracks. */
export function inlineScripts(html: string): string[] {
  const scripts: string[] = [];
  const lower = html.toLowerCase();
  let at = lower.indexOf("<script");
  while (at !== -1) {
    const open = lower.indexOf(">", at);
    const close = open === -1 ? -1 : lower.indexOf("</script", open);
    if (close === -1) break;
    // `<scripts…>` or `<script-x>` is another element; a `src` makes it a file the policy's 'self' covers.
    const attributes = lower.slice(at + "<script".length, open);
    if (/^(?:\s|\/|$)/.test(attributes) && !/\ssrc\s*=/.test(attributes)) scripts.push(html.slice(open + 1, close));
    at = lower.indexOf("<script", close + 1);
  }
  return scripts;
}

/** `'sha256-…'` of each distinct inline script of the page. */
export function scriptHashes(html: string): string[] {
  const hashes = inlineScripts(html).map(
    (script) => `'sha256-${createHash("sha256").update(script, "utf8").digest("base64")}'`,
  );
  return [...new Set(hashes)];
}

/** The policy of this HTML page: the site's directives, its scripts allowed by hash. */
export function pagePolicy(html: string, development = false): string {
  return contentSecurityPolicy({ development, scripts: development ? [] : scriptHashes(html) });
}

/** What Next's patched send-payload calls with each body it sends whole: headers for HTML pages only. */
export function renderedBodyHeaders(body: string, contentType: string | undefined) {
  if (!contentType?.startsWith("text/html")) return undefined;
  return { "Content-Security-Policy": pagePolicy(body, process.env.NODE_ENV === "development") };
}

/** A nonce as Next reads one from a request's policy: base64 or base64url. */
const nonceSource = /'nonce-([A-Za-z0-9+/_-]{16,}={0,2})'/;

/**
 * What Next's patched send-payload calls for a body it streams: the policy of
 * the nonce its scripts carry (server/web/request-nonce.mjs).
 */
export function renderedStreamHeaders(
  requestHeaders: Record<string, string | string[] | undefined>,
  contentType: string | undefined,
) {
  if (!contentType?.startsWith("text/html")) return undefined;
  const nonce = nonceSource.exec(String(requestHeaders["content-security-policy"] ?? ""))?.[1];
  // No nonce: the page's inline scripts are refused and it works as it does without JavaScript.
  const scripts = nonce === undefined ? [] : [`'nonce-${nonce}'`];
  const development = process.env.NODE_ENV === "development";
  return { "Content-Security-Policy": contentSecurityPolicy({ development, scripts }) };
}
