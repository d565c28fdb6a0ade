/**
 * No inline script runs but by its sha256, computed from the bytes sent (page-policy.ts), or a per-request nonce (decision 0011).
 * No Cross-Origin-Opener-Policy: Chrome moves every arriving visitor to a new process, delaying the first paint, to
 * isolate a public page that holds no session.
 */
type HeaderOptions = {
  development: boolean;
};

type PolicyOptions = HeaderOptions & {
  scripts?: readonly string[];
};

export function contentSecurityPolicy({ development, scripts = [] }: PolicyOptions) {
  const scriptSrc = ["'self'", ...scripts];
  // `next dev` renders inline scripts unhashed, React's dev build evaluates code, and Analytics' debug build is remote.
  if (development) scriptSrc.push("'unsafe-inline'", "'unsafe-eval'", "https://va.vercel-scripts.com");

  const directives: Record<string, string[]> = {
    "default-src": ["'self'"],
    "script-src": scriptSrc,
    // The stylesheet is a <style> the server writes; sonner injects one too.
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

export const consoleHeaders: readonly [string, string][] = [
  ["Cache-Control", "no-store"],
  ["X-Robots-Tag", "noindex, nofollow"],
];
