// @ts-check
// Which requests may carry a body, and how much: scripts/start.mjs answers every other body before a byte is
// read (405, 413, 411). Plain JavaScript, as that server loads it without the app's compiler.

export const CONSENT_CALL_BYTES = 4_096;

/** A form's post, JavaScript on or off: the longest message in four-byte characters and the other fields fit with room. next.config.ts gives actions the same. */
export const FORM_POST_BYTES = 64 * 1024;

export const CONSOLE_ACTION_BYTES = 16 * 1024;

export const routeBodies = new Map([
  ["/api/consent/revoke", CONSENT_CALL_BYTES],
  ["/api/consent/renew", CONSENT_CALL_BYTES],
  ["/console/deliveries/redeliver", CONSOLE_ACTION_BYTES],
  ["/console/deliveries/drop", CONSOLE_ACTION_BYTES],
  ["/console/deliveries/decide", CONSOLE_ACTION_BYTES],
  ["/console/quotes/handle", CONSOLE_ACTION_BYTES],
  ["/console/invitations/send", CONSOLE_ACTION_BYTES],
  ["/console/invitations/cancel", CONSOLE_ACTION_BYTES],
  ["/console/passkeys/remove", CONSOLE_ACTION_BYTES],
  ["/console/passkeys/rename", CONSOLE_ACTION_BYTES],
  ["/console/operators/act", CONSOLE_ACTION_BYTES],
  ["/console/sessions/end", CONSOLE_ACTION_BYTES],
  ["/console/waitlist/search", CONSOLE_ACTION_BYTES],
  ["/console/time-zone", CONSOLE_ACTION_BYTES],
]);

/**
 * The paths of the pages that hold a server action, from the build's server-reference manifest.
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
 * An Origin of another site than the request's host, as Next's own check of an action decides it.
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
 * The path as the routes match it: an absolute-form target read for its path, percent-escapes decoded as Next's router does.
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
 * A form's post from another site's page is 403 (Next would answer 500 with a stack).
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
 * The `Allow` of a 405 made before Next.
 * @param {string} pathname @param {readonly RegExp[]} actionPages
 */
export function allowOf(pathname, actionPages) {
  const path = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
  if (actionPages.some((page) => page.test(pathname))) return "GET, HEAD, POST, OPTIONS";
  return routeBodies.has(path) ? "POST" : "GET, HEAD";
}

/**
 * OPTIONS on a page with a form, which Next answers 405 with two Allow headers and no POST.
 * @param {string} pathname @param {readonly RegExp[]} actionPages
 */
export const optionsAllow = (pathname, actionPages) =>
  actionPages.some((page) => page.test(pathname)) ? "GET, HEAD, POST, OPTIONS" : undefined;
