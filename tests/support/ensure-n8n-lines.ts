/**
 * Installs every n8n line the server specs start, one after the other, into
 * the cache (tests/support/n8n-server.ts), before any worker starts: run by
 * `npm test` ahead of the server specs, and by `.ci/run` in the background
 * while the first Node line runs, with the Node the specs will run on (each
 * line is installed per Node ABI). Prints what it did and how long it took.
 */
import { ensureN8n, n8nLines } from "./n8n-server";

for (const line of Object.values(n8nLines)) {
  const began = performance.now();
  const { dir } = ensureN8n(line);
  console.log(
    `n8n ${line.version} on Node ${process.versions.node}: ${dir} (${((performance.now() - began) / 1000).toFixed(0)} s)`,
  );
}
