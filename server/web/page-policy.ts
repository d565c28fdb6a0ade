import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { EVERY_PATH } from "./every-path.mjs";
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
export function pagePolicy(html: string): string {
  return contentSecurityPolicy({ development: false, scripts: scriptHashes(html) });
}

/**
 * A page rendered per request: Next writes the nonce it reads from the request's policy on each of its scripts, and
 * the answer's policy allows that nonce alone.
 */
export function noncePolicies(
  development = process.env.NODE_ENV === "development",
  alsoAllowed: readonly string[] = [],
) {
  const nonce = `'nonce-${randomBytes(16).toString("base64")}'`;
  const scripts = [nonce, ...alsoAllowed];
  return { request: `script-src ${nonce}`, response: contentSecurityPolicy({ development, scripts }) };
}

const anyPathScripts = new Map<string, readonly string[]>();

/**
 * A path no route answers gets the prerendered 404, sent whole, or a page rendered for it (an error): its answer
 * allows both, the nonce and the hashes the build wrote for every path. Read once; none where the build is elsewhere.
 */
export function hashesForAnyPath(distDir = path.join(process.cwd(), ".next")): readonly string[] {
  let hashes = anyPathScripts.get(distDir);
  if (hashes) return hashes;
  try {
    const manifest = JSON.parse(readFileSync(path.join(distDir, "routes-manifest.json"), "utf8")) as {
      headers?: { source: string; headers: { key: string; value: string }[] }[];
    };
    const policy = manifest.headers
      ?.find((rule) => rule.source === EVERY_PATH)
      ?.headers.find(({ key }) => key === "Content-Security-Policy")?.value;
    hashes = (/(?:^|;\s*)script-src ([^;]*)/.exec(policy ?? "")?.[1] ?? "")
      .split(" ")
      .filter((source) => source.startsWith("'sha256-"));
  } catch {
    hashes = [];
  }
  anyPathScripts.set(distDir, hashes);
  return hashes;
}
