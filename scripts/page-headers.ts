// Each prerendered page's own Content-Security-Policy (its inline scripts by sha256) in the routes manifest, for a
// host that serves the built pages without Next's send-payload. The 404 and error pages answer at any path: their
// hashes join the rule for every path.
import { buildCustomRoute } from "next/dist/lib/build-custom-route";
import { EVERY_PATH } from "../server/web/every-path.mjs";
import { pagePolicy, scriptHashes } from "../server/web/page-policy";
import { contentSecurityPolicy } from "../server/web/security-headers";

type HeaderRule = { source: string; headers: { key: string; value: string }[]; regex: string };
type Manifest = { headers: HeaderRule[] };

/** The page files that answer any path rather than their own. */
const anyPath = new Set(["_not-found", "_global-error"]);

const CSP = "Content-Security-Policy";

/** "index" → "/", "sent/waitlist" → "/sent/waitlist"; null for the pages that answer any path. */
export function pathOfPage(name: string): string | null {
  if (anyPath.has(name)) return null;
  return name === "index" ? "/" : `/${name}`;
}

function withPolicy(rule: Pick<HeaderRule, "source" | "headers">, value: string) {
  return { ...rule, headers: [...rule.headers.filter(({ key }) => key !== CSP), { key: CSP, value }] };
}

/**
 * The manifest with one rule per page (replacing one an earlier run wrote) and
 * the rule for every path allowing the 404 and error pages' scripts.
 */
export function withPageHeaders<M extends Manifest>(manifest: M, pages: { name: string; html: string }[]): M {
  const sources = new Set(pages.map(({ name }) => pathOfPage(name)));
  const anywhere = pages.filter(({ name }) => pathOfPage(name) === null).flatMap(({ html }) => scriptHashes(html));
  if (!manifest.headers.some((rule) => rule.source === EVERY_PATH))
    throw new Error(`the routes manifest has no header rule for ${EVERY_PATH} (next.config.ts headers())`);
  const headers = manifest.headers.flatMap((rule) => {
    if (sources.has(rule.source)) return [];
    if (rule.source !== EVERY_PATH) return [rule];
    const policy = contentSecurityPolicy({ development: false, scripts: [...new Set(anywhere)] });
    return [withPolicy(rule, policy)];
  });
  for (const { name, html } of pages) {
    const source = pathOfPage(name);
    if (source !== null)
      headers.push(buildCustomRoute("header", withPolicy({ source, headers: [] }, pagePolicy(html))));
  }
  return { ...manifest, headers };
}
