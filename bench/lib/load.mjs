import autocannon from "autocannon";
import { connections } from "./config.mjs";

/**
 * @typedef {object} LoadResult
 * @property {number} perSecond   2xx answers per second
 * @property {number} p50Ms
 * @property {number} p99Ms
 * @property {number} ok          2xx answers in all
 * @property {number} non2xx
 * @property {number} errors      connection errors, timeouts included
 * @property {number} timeouts    no answer within autocannon's 10 s
 */

/**
 * One autocannon run. Only 2xx answers count as throughput: a server that
 * answers errors fast should not look fast.
 *
 * @param {import("autocannon").Options} options
 * @returns {Promise<LoadResult>}
 */
export async function load(options) {
  const result = await autocannon({ connections, ...options });
  return {
    perSecond: result["2xx"] / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/**
 * An autocannon setupRequest that gives each request its own client address,
 * because the app rate-limits per address. The addresses come from 198.18.0.0/15,
 * the block set aside for benchmarks; they only ever appear in a header.
 */
export function distinctClientAddresses() {
  let count = 0;
  return (request) => {
    count += 1;
    return { ...request, headers: { ...request.headers, "x-forwarded-for": benchAddress(count) } };
  };
}

/** @param {number} n */
export function benchAddress(n) {
  return `198.${18 + ((n >> 16) & 1)}.${(n >> 8) & 255}.${n & 255}`;
}
