import { oneLine } from "@/lib/forms/text";

// Link previews (iMessage's "facebookexternalhit/1.1 Facebot Twitterbot/1.0", WhatsApp's, Telegram's, Slack's…),
// crawlers, headless browsers and scripts: what fetches a page without a person asking for it.
const notAPerson =
  /bot\b|crawl|spider|preview|facebookexternalhit|facebot|whatsapp|skypeuri|google-pagerenderer|googleother|headless|curl|wget|python|okhttp|node-fetch|undici|go-http|java\//i;

/** A person's browser opening a page: a GET navigation with a browser's agent, neither a preview nor a prefetch. */
export function isPersonViewing(request: Request) {
  const headers = request.headers;
  const agent = headers.get("user-agent") ?? "";
  const purpose = ["sec-purpose", "purpose", "x-purpose", "x-moz"].map((name) => headers.get(name)).join(" ");
  const mode = headers.get("sec-fetch-mode");
  return (
    request.method === "GET" &&
    /^Mozilla\//.test(agent) &&
    !notAPerson.test(agent) &&
    !/prefetch|preview/i.test(purpose) &&
    (mode === null || mode === "navigate")
  );
}

/** The cookie that carries a visit's first touch from page to page: these fields, and nothing that names anyone. */
export const TOUCH_COOKIE = "sous_touch";
export const TOUCH_DAYS = 30;

export const touchFields = ["source", "medium", "campaign", "term", "content", "referrer", "landing_page"] as const;
export type Touch = Record<(typeof touchFields)[number], string | null> & { source: string };

const utmFields = ["source", "medium", "campaign", "term", "content"] as const;

/** Whatever a URL carried, kept as a visitor's typed text is: one line, no control characters, 100 at the most. */
function bounded(value: string | null) {
  const kept = Array.from(oneLine(value ?? "").trim())
    .slice(0, 100)
    .join("")
    .trim();
  return kept || null;
}

/** A touch read back from its cookie (or any such list): cleaned again, as anyone can write a cookie. */
export function touchOf(values: URLSearchParams): Touch {
  const touch = Object.fromEntries(touchFields.map((field) => [field, bounded(values.get(field))])) as Touch;
  return { ...touch, source: touch.source ?? "direct" };
}

/** A view that did not come from one of the site's own pages: typed, bookmarked, or followed from elsewhere. */
export function isFromOutside(referer: string | null, ownHosts: readonly string[]) {
  return !referer || !URL.canParse(referer) || !ownHosts.includes(new URL(referer).host.toLowerCase());
}

/**
 * The first page's `utm_` fields; else the host of another site that sent the visitor; else `direct`. The referrer
 * is its host alone: a search's words or a page's path stay out.
 */
export function firstTouch(url: URL, referer: string | null, ownHosts: readonly string[]): URLSearchParams {
  const from = referer && isFromOutside(referer, ownHosts) && URL.canParse(referer) ? new URL(referer) : undefined;
  const referrer = from && /^https?:$/.test(from.protocol) ? from.host : null;
  const values = new URLSearchParams();
  for (const field of utmFields) values.set(field, url.searchParams.get(`utm_${field}`) ?? "");
  if (!values.get("source")) values.set("source", referrer ?? "direct");
  values.set("referrer", referrer ?? "");
  values.set("landing_page", url.pathname);
  const touch = touchOf(values);
  return new URLSearchParams(touchFields.flatMap((field) => (touch[field] ? [[field, touch[field]]] : [])));
}
