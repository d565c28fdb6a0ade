// Hydration after the first paint (decision 0010): Next's chunk tags compete with a phone's first paint, and every
// form works without JavaScript. One inline loader adds the same scripts once the largest contentful paint is
// reported, at the first press, key or focus, or after 3 s.

/** Only Next's chunks move, never someone else's script. */
const chunkSource = String.raw`/_next/static/[^"<>\s]+\.js`;
const asyncScript = new RegExp(String.raw`<script src="(${chunkSource})" async=""></script>`, "g");
const scriptPreload = new RegExp(String.raw`<link rel="preload" as="script"[^>]*? href="(${chunkSource})"[^>]*/>`, "g");

export const loaderMark = "data-after-paint";

export const paintWaitMs = 3000;

function sharedFolder(sources: readonly string[]): string {
  let prefix = sources[0] ?? "";
  for (const source of sources) while (!source.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix.slice(0, prefix.lastIndexOf("/") + 1);
}

/** ES5, so any browser parses it. */
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

export function hydrateAfterPaint(html: string): string {
  const scripts = [...html.matchAll(asyncScript)];
  const last = scripts.at(-1);
  if (!last) return html;
  const sources = [...new Set(scripts.map((match) => match[1] ?? ""))];
  const end = last.index + last[0].length;
  const before = html.slice(0, last.index).replace(asyncScript, "");
  return (before + loaderScript(sources) + html.slice(end)).replace(scriptPreload, "");
}

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

/** The build's check: an async chunk tag or a script preload left before the paint. */
export function startsScriptsEarly(html: string): boolean {
  return new RegExp(String.raw`<script src="${chunkSource}" async=""|<link rel="preload" as="script"`).test(html);
}
