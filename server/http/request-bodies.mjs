// @ts-check
/**
 * Which requests may carry a body, and how much of it the site reads. The
 * server in front of Next (scripts/start.mjs) answers every other body
 * before a byte of it is read: 405 where no route takes one, 413 over the
 * route's limit, 411 for a form post that does not say its length. Plain
 * JavaScript, as that server loads it without the app's compiler.
 * server/http/request-bodies.test.ts keeps it in step with app/.
 */

/** What a consent call from the workflow reads: a number and a word, signed. */
export const CONSENT_CALL_BYTES = 4_096;

/**
 * What a form's post may carry, with the JavaScript on (the action's encoded
 * reply) or off (multipart): the longest message, 3,000 characters of four
 * bytes each, and the form's other fields fit with room. next.config.ts gives
 * Next's own limit for actions the same number.
 */
export const FORM_POST_BYTES = 64 * 1024;

/** The route handlers that take a body (POST), by path, with their limits. */
export const routeBodies = new Map([
  ["/api/consent/revoke", CONSENT_CALL_BYTES],
  ["/api/consent/renew", CONSENT_CALL_BYTES],
]);

/**
 * The paths of the pages that hold a server action, from the build's
 * server-reference manifest: `app/signup/page` is /signup, a dynamic segment
 * (`[form]`) any one segment, a route group (`(site)`) nothing.
 * @param {{ node?: Record<string, { workers?: Record<string, unknown> }> }} manifest
 * @returns {RegExp[]}
 */
export function actionPagesOf(manifest) {
  /** @type {Set<string>} */
  const pages = new Set();
  for (const action of Object.values(manifest.node ?? {}))
    for (const worker of Object.keys(action.workers ?? {})) {
      const match = /^app(.*)\/page$/.exec(worker);
      if (match) pages.add(match[1] ?? "");
    }
  return [...pages].map((page) => {
    const segments = page
      .split("/")
      .filter((segment) => segment !== "" && !/^\(.*\)$/.test(segment))
      .map((segment) => (/^\[.*\]$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    return new RegExp(`^/${segments.join("/")}/?$`);
  });
}

/**
 * How a request's body is taken, before any of it is read.
 * @param {{ method: string, pathname: string, contentLength: string | undefined, chunked: boolean }} request
 * @param {readonly RegExp[]} actionPages
 * @returns {{ take: true } | { take: false, status: 405 | 411 | 413 }}
 */
export function bodyVerdict({ method, pathname, contentLength, chunked }, actionPages) {
  const declared = contentLength === undefined ? undefined : Number(contentLength);
  if (!chunked && (declared === undefined || declared === 0)) return { take: true };
  const path = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
  const route = method === "POST" ? routeBodies.get(path) : undefined;
  const form = method === "POST" && actionPages.some((page) => page.test(pathname));
  if (route === undefined && !form) return { take: false, status: 405 };
  if (form && declared === undefined) return { take: false, status: 411 };
  if (declared !== undefined && !(declared <= (route ?? FORM_POST_BYTES))) return { take: false, status: 413 };
  return { take: true };
}
