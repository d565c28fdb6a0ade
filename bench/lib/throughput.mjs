import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { durations, host, nextURL, paths, ports } from "./config.mjs";
import { load } from "./load.mjs";
import { start, stop, waitForHttp } from "./processes.mjs";

const bareServer = fileURLToPath(new URL("../servers/bare.mjs", import.meta.url));

/**
 * @typedef {object} ThroughputRow
 * @property {string} path
 * @property {import("./load.mjs").LoadResult} next
 * @property {import("./load.mjs").LoadResult} bare
 * @property {import("./load.mjs").LoadResult} [baseline]  the BENCH_BASELINE commit, same page
 */

/**
 * Next against a bare Node server that answers with the very same bytes, one
 * after the other in the same run: on a shared machine the absolute numbers
 * drift, their ratio much less.
 *
 * @param {string[]} pagePaths
 * @param {string} [baselineURL] where the BENCH_BASELINE build is served, if any
 * @returns {Promise<ThroughputRow[]>}
 */
export async function measureThroughput(pagePaths, baselineURL) {
  const rows = [];
  for (const path of pagePaths) {
    const nextPage = new URL(path, nextURL).href;
    const barePage = new URL(path, `http://${host}:${ports.bare}`).href;
    const { file, contentType } = await snapshot(nextPage);

    const bare = start(process.execPath, [bareServer, String(ports.bare), file, contentType], {
      log: `${paths.runs}bare-server.log`,
    });
    try {
      await waitForHttp(barePage, bare);
      const baselinePage = baselineURL ? new URL(path, baselineURL).href : undefined;
      for (const url of [nextPage, barePage, baselinePage]) if (url) await load({ url, duration: durations.warmup });
      rows.push({
        path,
        next: await load({ url: nextPage, duration: durations.load }),
        bare: await load({ url: barePage, duration: durations.load }),
        ...(baselinePage ? { baseline: await load({ url: baselinePage, duration: durations.load }) } : {}),
      });
    } finally {
      await stop(bare);
    }
  }
  return rows;
}

/** Keeps the page's HTML as Next serves it to a client that asks for no compression, as autocannon does. */
async function snapshot(url) {
  const response = await fetch(url, { headers: { "accept-encoding": "identity" } });
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  const file = `${paths.runs}${new URL(url).pathname.replace(/\W+/g, "_") || "_"}.html`;
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  return { file, contentType: response.headers.get("content-type") ?? "text/html" };
}
