import "server-only";
import { consentFieldNames } from "@/lib/forms/consent";
import { escapeControls } from "@/server/escape-controls.mjs";
import { siteHosts } from "@/server/site-settings";
import type { ConsentEvidence } from "./consent-store";
import { disclosureOf } from "./disclosure";

export type ConsentSpec = { text: string; page: string };

/** Control and format characters as visible escapes: the evidence says what was sent without spoofing what is read. */
const cap = (value: string | null, length: number) => (value ? escapeControls(value).slice(0, length) : null);

/** Kept only on the site's own hosts: a Referer from elsewhere, or a Host a client wrote to match it, is the visitor's choice. */
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
    } catch {}
  }
  return null;
}

export function consentEvidence(
  spec: ConsentSpec,
  {
    phone,
    ip,
    formData,
    headers,
  }: {
    phone: string;
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
