// @ts-check
// next.config.ts's header rule for every path. An unnamed group, not `/:path*`: with a named one Next compiles each
// header value as a template on every request (37 µs of each view); plain JavaScript, as start.mjs loads it too.
export const EVERY_PATH = "/(.*)";
