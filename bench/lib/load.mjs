import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { connections, durations, paths, ports, urlOf } from "./config.mjs";
import { start, stop, waitForHttp } from "./processes.mjs";

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The nearest-rank percentile, so that p99 of 200 samples is a value that was measured. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
}

/** One autocannon run. Only 2xx answers count: a server that answers errors fast should not look fast. */
export async function load(options) {
  const result = await autocannon({ connections, ...options });
  const { p50, p99 } = result.latency;
  return { perSecond: result["2xx"] / result.duration, p50Ms: p50, p99Ms: p99, ok: result["2xx"], non2xx: result.non2xx, errors: result.errors };
}

/** A client address of 198.18.0.0/15, the block set aside for benchmarks: the app limits per address. */
export const benchAddress = (n) => `198.${18 + ((n >> 16) & 1)}.${(n >> 8) & 255}.${n & 255}`;

const bareServer = fileURLToPath(new URL("../servers/bare.mjs", import.meta.url));

/**
 * Each page's GETs per second from the app as `npm start` serves it, beside
 * the same build under `next start` (what scripts/start.mjs costs), a bare
 * Node server answering the very same bytes (what is left is the
 * framework's), and the baseline's build when there is one, one after the
 * other in the same run.
 */
export async function measureThroughput(pagePaths, appURL, nextStartURL, baselineURL) {
  const rows = [];
  for (const path of pagePaths) {
    const page = new URL(path, appURL).href;
    const response = await fetch(page, { headers: { "accept-encoding": "identity" } });
    const file = `${paths.runs}${path.replace(/\W+/g, "_") || "_"}.html`;
    await writeFile(file, Buffer.from(await response.arrayBuffer()));
    const bare = start(process.execPath, [bareServer, String(ports.bare), file, response.headers.get("content-type")], { log: `${paths.runs}bare.log` });
    try {
      await waitForHttp(urlOf(ports.bare), bare);
      const targets = { next: page, nextStart: new URL(path, nextStartURL).href, bare: urlOf(ports.bare, path), ...(baselineURL ? { baseline: new URL(path, baselineURL).href } : {}) };
      for (const url of Object.values(targets)) await load({ url, duration: durations.warmup });
      // Rounds in turn, the order reversed every other round, so a slower minute of the machine falls on every server alike; the median round counts.
      const runs = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
      for (let round = 0; round < durations.throughputRounds; round += 1) {
        const order = Object.entries(targets);
        for (const [name, url] of round % 2 ? order.reverse() : order) runs[name].push(await load({ url, duration: durations.load }));
      }
      const middle = (list) => [...list].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(list.length / 2)];
      rows.push({ path, ...Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, middle(list)])) });
    } finally {
      await stop(bare);
    }
  }
  return rows;
}
