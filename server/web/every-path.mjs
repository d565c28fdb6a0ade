// @ts-check
/**
 * The source of next.config.ts's header rule for every path, as the routes
 * manifest names it (scripts/page-headers.ts adds the pages' rules after it,
 * scripts/start.mjs reads its headers for the answers it makes before Next).
 *
 * An unnamed group, not `/:path*`: Next's router drops unnamed parameters, and
 * a rule that matched with a named one has each header value compiled as a
 * template on every request (`compileNonPath`, for values that hold a colon,
 * as the Content-Security-Policy's `data:` does): 37 µs of each view of
 * /signup (docs/performance.md). With none, Next sends the values as written,
 * which is what that template made of them anyway. Plain JavaScript, as
 * start.mjs loads it without the app's compiler.
 */
export const EVERY_PATH = "/(.*)";
