import { fileURLToPath } from "node:url";

/** Where the bench reads and writes, relative to the repository it lives in. */
export const paths = {
  root: fileURLToPath(new URL("../../", import.meta.url)),
  runs: fileURLToPath(new URL("../.runs/", import.meta.url)),
  results: fileURLToPath(new URL("../RESULTS.md", import.meta.url)),
};

// Loopback only, in one block of eight so a busy port is easy to move away from.
const base = Number(process.env.BENCH_PORT ?? 4100);
export const ports = { next: base, receiver: base + 1, bare: base + 2, chrome: base + 3, baseline: base + 4, floor: base + 5, slowReceiver: base + 6, leads: base + 7 };
export const host = "127.0.0.1";
export const nextURL = `http://${host}:${ports.next}`;
export const receiverURL = `http://${host}:${ports.receiver}`;

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Keeps Chromium from phoning home mid-measurement (it has no network here anyway, and waits on it). */
export const quietChromeFlags = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export const pages = {
  home: "/",
  signup: "/signup",
  terms: "/terms",
  privacy: "/privacy",
  notFound: "/no-such-page",
};

/** The server's environment: webhooks to the bench's receiver, rate limits out of the way. */
export const serverEnv = {
  CONTACT_WEBHOOK_URL: `${receiverURL}/hooks/contact`,
  WAITLIST_WEBHOOK_URL: `${receiverURL}/hooks/waitlist`,
  NEXT_TELEMETRY_DISABLED: "1",
  // The database (or, in a baseline before it, the pending-lead files) out of
  // the project's data/; OUTBOX_DIR is DATA_DIR's old name, read by both.
  OUTBOX_DIR: "bench/.runs/data",
  // Read by the rate limiter once it lands; harmless before that.
  RATE_LIMIT_FORM_POINTS: "1000000",
  RATE_LIMIT_PHONE_POINTS: "1000000",
  RATE_LIMIT_WAITLIST_PER_MINUTE: "1000000",
  WAITLIST_DAILY_LIMIT: "1000000",
};

/** Seconds, shortened by BENCH_QUICK=1 to check the bench itself rather than the app. */
export const quick = process.env.BENCH_QUICK === "1";
export const durations = {
  warmup: quick ? 1 : 3,
  load: quick ? 3 : 10,
  // Per page, interleaved with the framework floor's.
  lighthouseRuns: quick ? 1 : 5,
  sequentialPosts: quick ? 50 : 200,
  // A fresh server's sign-up rate climbs from about 40 to about 95 a second
  // over its first 40 s of load (measured here) as V8 optimises the path: each
  // build is warmed this long before its sign-ups are timed.
  signupWarmup: quick ? 3 : 40,
  // Sign-up loads: this many blocks of four short loads (this, before, before,
  // this), medians over all of them. Consecutive 5 s loads of one warm server
  // still differ by up to 30% here; a median of eight per build does not.
  signupBlocks: quick ? 1 : 4,
  signupLoad: quick ? 3 : 5,
  // Leads: how many a drain sends, how many an idle server holds, and for how long its CPU is counted.
  drainLeads: quick ? 40 : 300,
  idleLeads: quick ? 500 : 5_000,
  idleSeconds: quick ? 10 : 60,
};
/** BENCH_ONLY=signup,leads runs only those measurements (names as in run.mjs). */
export const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(",") : undefined;
export const connections = 50;

export const KB = 1024;
export const budgets = {
  jsBytes: { [pages.home]: 145 * KB, [pages.signup]: 165 * KB },
};
