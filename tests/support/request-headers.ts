/**
 * Stands in for next/headers in unit tests. Each request comes from a fresh
 * client address unless a test pins one, so rate limits only meet the tests
 * that are about them.
 */
let pinned: Headers | undefined;
let counter = 0;

export function pinRequestHeaders(init: Record<string, string> | undefined) {
  pinned = init ? new Headers(init) : undefined;
}

export function freshAddress() {
  counter += 1;
  return `198.51.${Math.floor(counter / 250) % 250}.${(counter % 250) + 1}`;
}

export async function headers() {
  return pinned ?? new Headers({ "x-forwarded-for": freshAddress() });
}
