import { fileURLToPath } from "node:url";

/** Where the bench reads and writes, relative to the repository it lives in. */
export const paths = {
  root: fileURLToPath(new URL("../../", import.meta.url)),
  runs: fileURLToPath(new URL("../.runs/", import.meta.url)),
};

// Loopback only, in one block so a busy port is easy to move away from (BENCH_PORT).
const base = Number(process.env.BENCH_PORT ?? 4100);
export const host = "127.0.0.1";
export const ports = { app: base, nextStart: base + 1, floor: base + 2, chrome: base + 3 };
export const urlOf = (port, path = "/") => new URL(path, `http://${host}:${port}`).href;

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Keeps Chromium from phoning home mid-measurement (it has no network here anyway, and waits on it). */
export const chromeFlags = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export const pages = ["/", "/signup"];

/** The app's environment: its data out of the project's data/. */
export const serverEnv = { NEXT_TELEMETRY_DISABLED: "1", DATA_DIR: "bench/.runs/data" };

/** BENCH_QUICK=1 shortens every run, to check the bench rather than the app. */
export const quick = process.env.BENCH_QUICK === "1";
export const durations = {
  warmup: quick ? 1 : 3,
  load: quick ? 3 : 10,
  throughputRounds: quick ? 1 : 3,
  lighthouseRuns: quick ? 1 : 5,
};
export const throughputConnections = 20;
/** BENCH_ONLY=audits,console runs only those measurements (audits, simulated, throughput, console). */
export const only = process.env.BENCH_ONLY?.split(",");

/** Serving, the worse of `/` and `/signup`: at least this share of `next start`'s requests per second, same build. */
export const servingShare = 1;
/** The console's reads at 100,000 sign-ups, p95, on each engine (issue 58). */
export const consoleBudgetMs = 150;
