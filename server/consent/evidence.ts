import "server-only";
import { consentFieldNames } from "@/lib/forms/consent";
import { escapeControls } from "@/server/escape-controls.mjs";
import { siteHosts } from "@/server/site-settings";
import type { ConsentEvidence } from "./consent-store";
import { disclosureOf } from "./disclosure";

/** What a form that asks for consent tells the server about it (see FormEntry). */
export type ConsentSpec = { text: string; page: string };

/**
 * A header's value as the record keeps it: control and format characters as
 * visible escapes (C1 codes, bidi overrides), so the evidence says what was
 * sent without being able to spoof what an operator reads; at most `length`
 * characters.
 */
const cap = (value: string | null, length: number) => (value ? escapeControls(value).slice(0, length) : null);

/**
 * The page the form was on: the browser's Referer, else the form's page on the
 * site the browser named (Origin). Kept only on the site's own hosts,
 * SITE_URL's and SITE_ALIASES: a Referer from elsewhere, or a Host header a
 * client wrote to match it, is what a visitor, or a page posting to ours, chose.
 */
function pageUrlOf(headers: Headers, page: string) {
  const hosts = siteHosts();
  for (const [value, path] of [
    [headers.get("referer"), ""],
    [headers.get("origin"), page],
  ] as const) {
    try {
      const url = new URL(path, value ?? undefined);
      if ((url.protocol === "https:" || url.protocol === "http:") && hosts.includes(url.host))
        return cap(url.href, 2_048);
    } catch {
      // Absent or not a URL: the next source, or none.
    }
  }
  return null;
}

/**
 * The evidence of one accepted sign-up's consent: the number, the address the
 * rate limiter counted, the browser, the page and how the form was sent, and
 * the consent text the page showed.
 */
export function consentEvidence(
  spec: ConsentSpec,
  {
    phone,
    ip,
    formData,
    headers,
  }: {
    phone: string;
    /** The address the rate limiter counted ("unknown": none). */
    ip: string;
    formData: FormData;
    headers: Headers;
  },
): ConsentEvidence {
  const posted = (name: string) => {
    const value = formData.get(name);
    return typeof value === "string" ? value : null;
  };
  const shown = posted(consentFieldNames.disclosure);
  return {
    phone,
    ip: ip === "unknown" ? null : ip,
    userAgent: cap(headers.get("user-agent"), 1_000),
    pageUrl: pageUrlOf(headers, spec.page),
    javascript: posted(consentFieldNames.javascript) === "1",
    disclosure: disclosureOf(spec.text),
    shownVersion: shown && /^[0-9a-f]{64}$/.test(shown) ? shown : null,
  };
}
