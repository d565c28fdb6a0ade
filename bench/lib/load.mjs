import autocannon from "autocannon";
import { durations, throughputConnections } from "./config.mjs";

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** One autocannon run. Only 2xx answers count: a server that answers errors fast should not look fast. */
async function load(url, headers, duration) {
  const result = await autocannon({ url, headers, connections: throughputConnections, duration });
  return { perSecond: result["2xx"] / result.duration, p99Ms: result.latency.p99 };
}

/** What a GET asks for: the page as sent, or compressed as a browser accepts it. */
export const encodings = { identity: "identity", compressed: "gzip, br" };

/**
 * What a browser's visits ask of a server, 60 times over: each page compressed, its React Server Components payload
 * as a link's prefetch asks for it, and a missing path. Next serves a page slower once it has answered the last two,
 * so both servers answer them before either is measured.
 */
async function serveVisits(base) {
  for (let visit = 0; visit < 60; visit += 1) {
    for (const [path, headers] of [
      ["/", { "accept-encoding": "gzip, br" }],
      ["/signup", { "accept-encoding": "gzip, br" }],
      ["/", { RSC: "1", "Next-Router-Prefetch": "1" }],
      ["/signup", { RSC: "1", "Next-Router-Prefetch": "1" }],
      ["/no-such-page-of-the-bench", {}],
    ])
      await (await fetch(new URL(path, base), { headers })).arrayBuffer();
  }
}

/**
 * Each page's GETs per second, uncompressed and compressed, from the app under `npm start` and the same build under
 * `next start`, 20 connections, in turn, the order reversed every other round so a slower minute of the machine falls
 * on both alike; the median round counts.
 */
export async function measureThroughput(pagePaths, servers) {
  await Promise.all(Object.values(servers).map(serveVisits));
  const rows = [];
  for (const path of pagePaths) {
    for (const [encoding, accept] of Object.entries(encodings)) {
      const headers = { "accept-encoding": accept };
      const targets = Object.entries(servers).map(([name, base]) => [name, new URL(path, base).href]);
      for (const [, url] of targets) await load(url, headers, durations.warmup);
      const runs = Object.fromEntries(targets.map(([name]) => [name, []]));
      for (let round = 0; round < durations.throughputRounds; round += 1)
        for (const [name, url] of round % 2 ? targets.toReversed() : targets)
          runs[name].push(await load(url, headers, durations.load));
      const middle = (list) => [...list].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(list.length / 2)];
      rows.push({
        path,
        encoding,
        ...Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, middle(list)])),
      });
    }
  }
  return rows;
}
