/**
 * `npm run bench`: Lighthouse against the framework's floor, serving against `next start` on the same build, and the
 * console's reads at 100,000 sign-ups (docs/performance.md). A missed budget is a result: it exits 0 unless it could
 * not measure.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { host, only, pages, paths, ports, quick } from "./lib/config.mjs";
import { measureConsole } from "./lib/console.mjs";
import { auditInterleaved } from "./lib/lighthouse.mjs";
import { measureThroughput } from "./lib/load.mjs";
import { killAllNow, stopAll, waitForPortFree } from "./lib/processes.mjs";
import { budgets, render, sections } from "./lib/report.mjs";
import { serveApp, serveAppWithNextStart, serveFloor } from "./lib/servers.mjs";

const log = (message) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

/** Runs one measurement unless BENCH_ONLY leaves it out; its failure becomes its result, so the others still run. */
async function measure(key, task) {
  if (only && !only.includes(key)) return undefined;
  log(`${key}…`);
  try {
    return await task();
  } catch (error) {
    log(`${key} failed: ${error.stack ?? error}`);
    return error instanceof Error ? error : new Error(String(error));
  }
}

async function main() {
  await rm(paths.runs, { recursive: true, force: true });
  await mkdir(paths.runs, { recursive: true });
  for (const port of Object.values(ports)) await waitForPortFree(port, host, 0);
  const cpus = os.cpus();
  const machine = {
    date: new Date().toISOString(),
    cpu: `${cpus[0]?.model.trim()} × ${cpus.length}`,
    node: process.version,
    "load at start": os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" / "),
  };
  log("building and starting the app and the floor…");
  const app = await serveApp();
  const nextStart = await serveAppWithNextStart();
  const floor = await serveFloor();
  // The floor and both pages, audited in turn.
  const targets = [
    { label: "floor", url: floor.url },
    ...pages.map((path) => ({ label: path, url: new URL(path, app.url).href })),
  ];
  const results = {
    machine,
    audits: await measure("audits", () => auditInterleaved(targets, "devtools")),
    simulated: await measure("simulated", () => auditInterleaved(targets, "simulate")),
    throughput: await measure("throughput", () => measureThroughput(pages, { app: app.url, nextStart: nextStart.url })),
    console: await measure("console", () => measureConsole()),
  };
  const title = `Benchmark: chef-assistant-site${quick ? " (BENCH_QUICK: shortened runs, not for comparison)" : ""}`;
  const report = render(title, sections(results), budgets(results));
  process.stdout.write(report);
  await writeFile(`${paths.runs}RESULTS.md`, report);
  if (Object.values(results).some((value) => value instanceof Error)) process.exitCode = 1;
}

for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => stopAll().then(() => process.exit(130)));
process.on("exit", killAllNow);
try {
  await main();
} catch (error) {
  log(`failed: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await stopAll();
}
