/**
 * Hydration after the first paint (docs/decisions/0010-system-font-and-late-hydration.md).
 *
 * Next writes the page's JavaScript as `<script src async>` tags (and one
 * preload) that the browser fetches and runs while it is still laying out the
 * page, so on a phone the scripts compete with the first paint, and PageSpeed's
 * model charges every one of them to it. Every form works without JavaScript and
 * the menu is a native popover, so nothing the visitor sees needs them first.
 * This rewrite takes those tags out and leaves, where the last one stood, one
 * inline loader that adds the same scripts, in the same order, once the browser
 * reports the largest contentful paint; or at the visitor's first press, key or
 * focus; or after 3 s if no paint is reported (a hidden tab); or after the first
 * frame where the browser cannot report it.
 *
 * Applied to the built pages (scripts/late-hydration.ts) and, through Next's
 * patched send-payload (patches/), to every page body Next sends whole, pages
 * regenerated at run time included. A page without such tags (already
 * rewritten, or not Next's) is returned as it is.
 */

/** The chunks Next serves: only these tags are moved, never a script of someone else's. */
const chunkSource = String.raw`/_next/static/[^"<>\s]+\.js`;
const asyncScript = new RegExp(String.raw`<script src="(${chunkSource})" async=""></script>`, "g");
const scriptPreload = new RegExp(String.raw`<link rel="preload" as="script"[^>]*? href="(${chunkSource})"[^>]*/>`, "g");

/** The attribute that marks the loader, so a test (and the build check) can find it. */
export const loaderMark = "data-after-paint";

/** Milliseconds the loader waits for a paint report before it loads the scripts anyway. */
export const paintWaitMs = 3000;

/** The folder every address shares ("/_next/static/chunks/"), written once in the loader. */
function sharedFolder(sources: readonly string[]): string {
  let prefix = sources[0] ?? "";
  for (const source of sources) while (!source.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix.slice(0, prefix.lastIndexOf("/") + 1);
}

/** The loader, for these script addresses: small, no dependencies, ES5 so any browser parses it. */
export function loaderScript(sources: readonly string[]): string {
  const folder = sharedFolder(sources);
  const names = sources.map((source) => source.slice(folder.length));
  const body =
    "(function(p,s){var w=window,o,t,e=['pointerdown','keydown','focusin'];" +
    "function go(){if(!s)return;var l=s;s=0;clearTimeout(t);if(o)o.disconnect();" +
    "e.forEach(function(n){w.removeEventListener(n,go,true)});" +
    "l.forEach(function(u){var c=document.createElement('script');c.src=p+u;c.async=true;document.head.appendChild(c)})}" +
    "e.forEach(function(n){w.addEventListener(n,go,true)});" +
    `t=setTimeout(go,${paintWaitMs});` +
    "var P=w.PerformanceObserver;" +
    "if(P&&P.supportedEntryTypes&&P.supportedEntryTypes.indexOf('largest-contentful-paint')>=0)" +
    "{o=new P(go);o.observe({type:'largest-contentful-paint',buffered:true})}" +
    "else requestAnimationFrame(function(){setTimeout(go)})" +
    `})(${JSON.stringify(folder)},${JSON.stringify(names)})`;
  return `<script ${loaderMark}="">${body}</script>`;
}

/** The page with its chunk scripts started after the first paint; any other text unchanged. */
export function hydrateAfterPaint(html: string): string {
  const scripts = [...html.matchAll(asyncScript)];
  const last = scripts.at(-1);
  if (!last) return html;
  const sources = [...new Set(scripts.map((match) => match[1] ?? ""))];
  const end = last.index + last[0].length;
  const before = html.slice(0, last.index).replace(asyncScript, "");
  return (before + loaderScript(sources) + html.slice(end)).replace(scriptPreload, "");
}

/** The scripts a page starts with: its loader's list if it has one, else its `<script src async>` tags. */
export function startScripts(html: string): string[] {
  const loader = new RegExp(String.raw`<script ${loaderMark}="">[^<]*\}\)\(("[^"]*"),(\[[^\]]*\])\)</script>`).exec(
    html,
  );
  if (loader) {
    const folder = JSON.parse(loader[1] ?? "") as string;
    return (JSON.parse(loader[2] ?? "") as string[]).map((name) => folder + name);
  }
  return [...html.matchAll(asyncScript)].map((match) => match[1] ?? "");
}

/**
 * Whether the page still starts a chunk script before its paint: an async
 * chunk tag (whatever follows its `async`) or a script preload. The build's check.
 */
export function startsScriptsEarly(html: string): boolean {
  return new RegExp(String.raw`<script src="${chunkSource}" async=""|<link rel="preload" as="script"`).test(html);
}

/**
 * The page without the nonces Next wrote on its scripts. A page regenerated at
 * run time is rendered for the request that found it stale, and Next writes
 * that request's nonce (scripts/start.mjs gives every request one) on every
 * script: the page is then kept and sent whole to everyone, allowed by its
 * scripts' hashes (server/web/page-policy.ts), where a nonce means nothing,
 * and with it the chunk tags no longer read as the ones this rewrite moves.
 */
export function withoutNonces(html: string): string {
  return html.replace(/(<script\b[^>]*?) nonce="[^"<>]*"/g, "$1");
}

/** What Next's patched send-payload calls with each body it sends whole: HTML pages only. */
export function renderedBodyTransform(body: string, contentType: string | undefined): string {
  return contentType?.startsWith("text/html") ? hydrateAfterPaint(withoutNonces(body)) : body;
}
