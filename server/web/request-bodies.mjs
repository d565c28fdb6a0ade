// @ts-check
/**
 * Which requests may carry a body, and how much of it the site reads. The
 * server in front of Next (scripts/start.mjs) answers every other body
 * before a byte of it is read: 405 where no route takes one, 413 over the
 * route's limit, 411 for a form post that does not say its length. Plain
 * JavaScript, as that server loads it without the app's compiler.
 * server/web/request-bodies.test.ts keeps it in step with app/.
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

/** What a console action's plain form posts: a few short fields (server/console/action-guard.ts). */
export const CONSOLE_ACTION_BYTES = 16 * 1024;

/** The route handlers that take a body (POST), by path, with their limits. */
export const routeBodies = new Map([
  ["/api/consent/revoke", CONSENT_CALL_BYTES],
  ["/api/consent/renew", CONSENT_CALL_BYTES],
  ["/console/deliveries/redeliver", CONSOLE_ACTION_BYTES],
  ["/console/deliveries/drop", CONSOLE_ACTION_BYTES],
  ["/console/invitations/send", CONSOLE_ACTION_BYTES],
  ["/console/invitations/cancel", CONSOLE_ACTION_BYTES],
  ["/console/passkeys/remove", CONSOLE_ACTION_BYTES],
  ["/console/sessions/end", CONSOLE_ACTION_BYTES],
  ["/console/waitlist/search", CONSOLE_ACTION_BYTES],
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
 * Whether an Origin names another site than the one the request was sent to
 * (its X-Forwarded-Host, else its Host), as Next's own check of a server
 * action decides it; no Origin (an older browser) is not foreign.
 * @param {string | undefined} origin @param {string | undefined} host
 */
function foreign(origin, host) {
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== host?.split(",")[0]?.trim().toLowerCase();
  } catch {
    return true;
  }
}

/**
 * The path a request names, as the routes match it: its query left aside, an
 * absolute-form target (`POST http://host/signup`) read for its path, and
 * percent-escapes decoded (`/%73ignup` is /signup to Next's router too).
 * @param {string} target the request line's target (`request.url`)
 */
export function pathOf(target) {
  let path = target.split("?")[0] ?? "";
  if (/^https?:\/\//i.test(target)) {
    try {
      path = new URL(target).pathname;
    } catch {
      return path;
    }
  }
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * How a request's body is taken, before any of it is read: a form's post
 * from another site's page is 403 (Next would answer 500 with a stack). A
 * form's post is a POST to a page that holds a server action, or any POST
 * that names an action (the `Next-Action` header), whatever its path.
 * @param {{ method: string, pathname: string, contentLength: string | undefined, chunked: boolean, origin?: string, host?: string, nextAction?: boolean }} request
 * @param {readonly RegExp[]} actionPages
 * @returns {{ take: true } | { take: false, status: 403 | 405 | 411 | 413 }}
 */
export function bodyVerdict(
  { method, pathname, contentLength, chunked, origin, host, nextAction = false },
  actionPages,
) {
  const declared = contentLength === undefined ? undefined : Number(contentLength);
  const path = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
  const form = method === "POST" && (nextAction || actionPages.some((page) => page.test(pathname)));
  if (form && foreign(origin, host)) return { take: false, status: 403 };
  if (!chunked && (declared === undefined || declared === 0)) return { take: true };
  const route = method === "POST" ? routeBodies.get(path) : undefined;
  if (route === undefined && !form) return { take: false, status: 405 };
  if (form && declared === undefined) return { take: false, status: 411 };
  if (declared !== undefined && !(declared <= (route ?? FORM_POST_BYTES))) return { take: false, status: 413 };
  return { take: true };
}

/**
 * The methods a path takes, for the `Allow` of a 405 made before Next: a
 * page with a server action GET, HEAD, POST and OPTIONS (answered here), a
 * route handler that takes a body (the consent calls, the console's actions)
 * POST alone, every other path GET and HEAD.
 * @param {string} pathname @param {readonly RegExp[]} actionPages
 */
export function allowOf(pathname, actionPages) {
  const path = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
  if (actionPages.some((page) => page.test(pathname))) return "GET, HEAD, POST, OPTIONS";
  return routeBodies.has(path) ? "POST" : "GET, HEAD";
}

/**
 * The answer to OPTIONS on a page that takes a form's post, which Next answers
 * 405 with two Allow headers and no POST; undefined elsewhere (Next's own
 * answer: a route handler lists its methods).
 * @param {string} pathname @param {readonly RegExp[]} actionPages
 */
export const optionsAllow = (pathname, actionPages) =>
  actionPages.some((page) => page.test(pathname)) ? "GET, HEAD, POST, OPTIONS" : undefined;
