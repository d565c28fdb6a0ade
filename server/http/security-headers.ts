/**
 * Response headers every route carries, set by next.config.ts headers().
 *
 * script-src keeps 'unsafe-inline' on purpose: Next inlines its bootstrap
 * scripts, and the only way to allow them without it is a per-request nonce,
 * which forces every page to render per request instead of being served
 * prerendered (docs/security.md says how much). Every other directive is
 * strict, and no page renders visitor input as HTML.
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

export function contentSecurityPolicy({ development }: HeaderOptions) {
  const scriptSrc = ["'self'", "'unsafe-inline'"];
  // React's dev build evaluates code for its error overlay and stack traces, and
  // Vercel Analytics loads its debug build from its own origin; in production
  // its script is same-origin (/_vercel/insights/script.js).
  if (development) scriptSrc.push("'unsafe-eval'", "https://va.vercel-scripts.com");

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
