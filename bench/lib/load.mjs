import autocannon from "autocannon";
import { connections, durations, sameSizePath, throughputConnections } from "./config.mjs";

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0
    ? Number.NaN
    : sorted.length % 2
      ? sorted[middle]
      : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The nearest-rank percentile, so that p99 of 200 samples is a value that was measured. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
}

/**
 * One autocannon run. Only 2xx answers count (and 3xx with `redirects`, for a
 * post that ends in a redirect): a server that answers errors fast should not
 * look fast.
 */
export async function load({ redirects = false, ...options }) {
  const result = await autocannon({ connections, ...options });
  const { p50, p99 } = result.latency;
  const ok = result["2xx"] + (redirects ? result["3xx"] : 0);
  return {
    perSecond: ok / result.duration,
    p50Ms: p50,
    p99Ms: p99,
    ok,
    non2xx: result.non2xx - (redirects ? result["3xx"] : 0),
    errors: result.errors,
  };
}

/** A client address of 198.18.0.0/15, the block set aside for benchmarks: the app limits per address. */
export const benchAddress = (n) => `198.${18 + ((n >> 16) & 1)}.${(n >> 8) & 255}.${n & 255}`;

/** What a GET asks for: the page as sent, or compressed as a browser accepts it. */
export const encodings = { identity: "identity", compressed: "gzip, br" };

/** Each page's bytes as sent uncompressed, by path. */
export async function pageSizes(base, pagePaths) {
  const sizes = {};
  for (const pagePath of pagePaths) {
    const response = await fetch(new URL(pagePath, base), { headers: { "accept-encoding": "identity" } });
    sizes[pagePath] = (await response.arrayBuffer()).byteLength;
  }
  return sizes;
}

/** How many times serveVisits asks for each thing. */
const VISITS = 60;

/**
 * What a browser's visits ask of a server, VISITS times over, one at a time:
 * each page, compressed; its React Server Components payload, as a link's
 * prefetch asks for it; and a path that does not exist. Next serves a page
 * slower once it has answered the last two: the app's page under `next
 * start`, measured against the floor's page of its bytes in interleaved
 * rounds, went from 1.03 to 0.84 of it after 120 requests for a missing
 * page, and from 0.98 to 0.77 after 180 payloads, where 240 views of other
 * pages or 240 of the metadata files changed nothing (docs/performance.md).
 * The app's server has answered both kinds by the time its throughput is
 * measured (the weights weigh the 404 page, the audits' pages prefetch their
 * links); next start's and the floor's had not, until this.
 */
async function serveVisits(base, pagePaths) {
  for (let visit = 0; visit < VISITS; visit += 1) {
    for (const path of pagePaths) {
      for (const headers of [{ "accept-encoding": "gzip, br" }, { RSC: "1", "Next-Router-Prefetch": "1" }])
        await (await fetch(new URL(path, base), { headers })).arrayBuffer();
    }
    await (await fetch(new URL("/no-such-page-of-the-bench", base))).arrayBuffer();
  }
}

/**
 * Each page's GETs per second, uncompressed and compressed, from the app as
 * `npm start` serves it, the same build under `next start` (what
 * scripts/start.mjs costs), the framework floor's empty page (what is left
 * is the app's), the floor's page of text as heavy as the app's page (what
 * the framework does with that many bytes, on this machine, where the load
 * and the server share the cores), and the baseline's build when there is
 * one: in turn, the order reversed every other round, so a slower minute of
 * the machine falls on every server alike; the median round counts. 20
 * connections.
 */
export async function measureThroughput(pagePaths, { app, nextStart, floor, baseline }) {
  // Every server first serves what a visit asks of it, so none is measured fresh beside one that is not.
  await Promise.all([app, nextStart, baseline].filter(Boolean).map((url) => serveVisits(url, pagePaths)));
  await serveVisits(floor, ["/", ...pagePaths.map(sameSizePath)]);
  const rows = [];
  for (const path of pagePaths) {
    for (const [encoding, accept] of Object.entries(encodings)) {
      const targets = {
        app: new URL(path, app).href,
        nextStart: new URL(path, nextStart).href,
        floor,
        sameSize: new URL(sameSizePath(path), floor).href,
        ...(baseline ? { baseline: new URL(path, baseline).href } : {}),
      };
      const headers = { "accept-encoding": accept };
      const sent = {};
      for (const [name, url] of Object.entries(targets)) {
        const response = await fetch(url, { headers });
        sent[name] = {
          status: response.status,
          encoding: response.headers.get("content-encoding") ?? "identity",
          etag: Boolean(response.headers.get("etag")),
          // Decoded: the page's own bytes, whatever the encoding.
          bytes: (await response.arrayBuffer()).byteLength,
        };
        await load({ url, headers, connections: throughputConnections, duration: durations.warmup });
      }
      const runs = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
      for (let round = 0; round < durations.throughputRounds; round += 1) {
        const order = Object.entries(targets);
        for (const [name, url] of round % 2 ? order.reverse() : order)
          runs[name].push(await load({ url, headers, connections: throughputConnections, duration: durations.load }));
      }
      const middle = (list) => [...list].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(list.length / 2)];
      rows.push({
        path,
        encoding,
        sent,
        ...Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, middle(list)])),
      });
    }
  }
  return rows;
}
