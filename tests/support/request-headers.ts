/**
 * Stands in for next/headers in unit tests (tests/support/vitest-setup.ts).
 * Each request comes from a fresh client address unless a test pins one, so
 * rate limits only meet the tests that are about them; the browser's cookies
 * are one jar, emptied after each test, that a test reads and fills as the
 * browser would.
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

/** The cookies the browser holds for the site: name to value. */
export const cookieJar = new Map<string, string>();
/** The attributes each cookie was last set with (HttpOnly, Max-Age…), a clearing's included. */
export const cookieAttributes = new Map<string, Record<string, unknown>>();

/** next/headers' cookies(), as a server action sees them: a max-age of 0 deletes, as the browser would. */
export async function cookies() {
  return {
    get: (name: string) => (cookieJar.has(name) ? { name, value: cookieJar.get(name)! } : undefined),
    set: (name: string, value: string, attributes: Record<string, unknown> = {}) => {
      cookieAttributes.set(name, attributes);
      if (attributes.maxAge === 0) cookieJar.delete(name);
      else cookieJar.set(name, value);
    },
  };
}
