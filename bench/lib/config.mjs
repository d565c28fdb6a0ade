import { fileURLToPath } from "node:url";

/** Where the bench reads and writes, relative to the repository it lives in. */
export const paths = {
  root: fileURLToPath(new URL("../../", import.meta.url)),
  runs: fileURLToPath(new URL("../.runs/", import.meta.url)),
  results: fileURLToPath(new URL("../RESULTS.md", import.meta.url)),
};

// Loopback only, in one block so a busy port is easy to move away from (BENCH_PORT).
const base = Number(process.env.BENCH_PORT ?? 4100);
export const host = "127.0.0.1";
export const ports = {
  next: base,
  receiver: base + 1,
  chrome: base + 3,
  baseline: base + 4,
  floor: base + 5,
  nextStart: base + 6,
};
export const urlOf = (port, path = "/") => new URL(path, `http://${host}:${port}`).href;

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Keeps Chromium from phoning home mid-measurement (it has no network here anyway, and waits on it). */
export const chromeFlags = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export const pages = { home: "/", signup: "/signup", terms: "/terms", privacy: "/privacy", notFound: "/no-such-page" };

/** Where the floor serves a page of text as heavy as the app's page at `pagePath` (bench/lib/servers.mjs). */
export const sameSizePath = (pagePath) => `/same-size/${pagePath.replace(/\W/g, "") || "home"}`;

/** The server's environment: webhooks to the bench's receiver, rate limits out of the way. */
export const serverEnv = {
  CONTACT_WEBHOOK_URL: urlOf(ports.receiver, "/hooks/contact"),
  WAITLIST_WEBHOOK_URL: urlOf(ports.receiver, "/hooks/waitlist"),
  NEXT_TELEMETRY_DISABLED: "1",
  // Out of the project's data/; OUTBOX_DIR is DATA_DIR's old name, read by older baselines too.
  OUTBOX_DIR: "bench/.runs/data",
  RATE_LIMIT_FORM_POINTS: "1000000",
  RATE_LIMIT_PHONE_POINTS: "1000000",
  RATE_LIMIT_WAITLIST_PER_MINUTE: "1000000",
  WAITLIST_DAILY_LIMIT: "1000000",
};

/** BENCH_QUICK=1 shortens every run, to check the bench rather than the app. */
export const quick = process.env.BENCH_QUICK === "1";
export const durations = {
  warmup: quick ? 1 : 3,
  load: quick ? 3 : 10,
  throughputRounds: quick ? 1 : 3,
  lighthouseRuns: quick ? 1 : 5,
  sequentialPosts: quick ? 50 : 200,
  // A fresh server's sign-up rate climbs for its first half minute as V8 optimises the path.
  signupWarmup: quick ? 3 : 40,
  // Blocks of four short loads (this, before, before, this): short loads of one warm server differ a lot, their median does not.
  signupBlocks: quick ? 1 : 4,
  signupLoad: quick ? 3 : 5,
};
export const connections = 50;
/** Connections of the GET throughput runs, the app beside the floor. */
export const throughputConnections = 20;
export const title = `Benchmark: chef-assistant-site${quick ? " (BENCH_QUICK: shortened runs, not for comparison)" : ""}`;
/** BENCH_ONLY=signup,weights runs only those measurements (weights, audits, simulated, hydration, throughput, signup, console). */
export const only = process.env.BENCH_ONLY?.split(",");
export const baselineRef = process.env.BENCH_BASELINE || undefined;

export const KB = 1024;
// No heavier than before issue 48 (bench/RESULTS.md at 140c818: 140.1 and 151.7 KB).
export const jsBudgets = { [pages.home]: 140.1 * KB, [pages.signup]: 151.7 * KB };
/** The documents as served, raw and gzipped at zlib's default level (6). */
export const htmlBudgets = {
  [pages.home]: { raw: 90 * KB, gzip: 18 * KB },
  [pages.signup]: { raw: 50 * KB, gzip: 12 * KB },
};
/** lib/style/marker.ts: the custom property that finds the site's stylesheet in a page (a floor or baseline page may have none). */
export const stylesheetMarker = "--sous-stylesheet:1";
/**
 * Serving, as decided for issue 48's block (docs/performance.md), judged on the
 * worse of `/` and `/signup`: uncompressed, the least share of the floor's page
 * of the same bytes' GETs per second; compressed, of the floor's empty page's.
 */
export const throughputBudgets = {
  identity: { least: 0.9, against: "sameSize", floor: "the floor's page of the same bytes" },
  compressed: { least: 0.8, against: "floor", floor: "the floor's empty page" },
};
/** The console's reads at 100,000 sign-ups, p95, on each engine (issue 58). */
export const consoleBudgetMs = 150;
