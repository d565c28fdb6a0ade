/**
 * Response headers every route carries, set by next.config.ts headers().
 *
 * script-src allows no inline script by default: a page's own inline scripts
 * (Next's bootstrap and payload, the late-hydration loader, the 404 page's
 * console line) are allowed by their sha256, computed from the very bytes sent
 * (server/web/page-policy.ts): per body by Next's patched send-payload for
 * every page sent whole, and by the build for hosts that serve the prerendered
 * files themselves (scripts/late-hydration.ts). A page rendered per request (a
 * form posted without JavaScript) carries a nonce instead (middleware.ts).
 * docs/decisions/0011-script-hashes.md says why and what it costs.
 *
 * No Cross-Origin-Opener-Policy: `same-origin` makes Chrome move every arriving
 * visitor into a new browsing context group, and so a new renderer process,
 * once the response is in, which delays the first paint (docs/performance.md,
 * "The opener policy"). What it would isolate is a public page that holds no session and
 * nothing per visitor; framing is already refused (frame-ancestors, X-Frame-Options).
 */
type HeaderOptions = {
  /** `next dev`: React's dev build and Vercel Analytics' debug script. */
  development: boolean;
};

type PolicyOptions = HeaderOptions & {
  /** The inline scripts this response may run: `'sha256-…'` of each, or its `'nonce-…'`. */
  scripts?: readonly string[];
};

export function contentSecurityPolicy({ development, scripts = [] }: PolicyOptions) {
  const scriptSrc = ["'self'", ...scripts];
  // `next dev` renders every page per request, its inline scripts unhashed;
  // React's dev build evaluates code for its error overlay and stack traces, and
  // Vercel Analytics loads its debug build from its own origin; in production
  // its script is same-origin (/_vercel/insights/script.js).
  if (development) scriptSrc.push("'unsafe-inline'", "'unsafe-eval'", "https://va.vercel-scripts.com");

  const directives: Record<string, string[]> = {
    "default-src": ["'self'"],
    "script-src": scriptSrc,
    // The site's stylesheet is a <style> the server writes (components/site/site-styles.tsx); sonner injects one too.
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:", "blob:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
    "manifest-src": ["'self'"],
  };
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(" ")}`)
    .join("; ");
}

export function securityHeaders(options: HeaderOptions): [string, string][] {
  return [
    ["Content-Security-Policy", contentSecurityPolicy(options)],
    ["Strict-Transport-Security", "max-age=31536000; includeSubDomains"],
    ["X-Content-Type-Options", "nosniff"],
    ["Referrer-Policy", "strict-origin-when-cross-origin"],
    [
      "Permissions-Policy",
      "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=(), browsing-topics=()",
    ],
    ["X-Frame-Options", "DENY"],
  ];
}

/** What every console response adds: kept by no cache, shown by no search engine. */
export const consoleHeaders: readonly [string, string][] = [
  ["Cache-Control", "no-store"],
  ["X-Robots-Tag", "noindex, nofollow"],
];
