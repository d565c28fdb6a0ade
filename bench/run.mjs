/**
 * `npm run bench`: builds the app and the framework floor (and BENCH_BASELINE's
 * commit), serves them on loopback beside a webhook receiver, measures page
 * weight, Lighthouse against the floor, throughput, the no-JavaScript
 * sign-up and the console's reads at 100,000 sign-ups, and prints the report (also written to bench/RESULTS.md). A missed
 * budget is a result: the bench exits 0 unless it could not measure.
 * Settings: BENCH_PORT, BENCH_QUICK=1, BENCH_BASELINE=<git ref>, BENCH_ONLY (docs/performance.md).
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { host, only, pages, paths, ports, title, urlOf } from "./lib/config.mjs";
import { auditInterleaved } from "./lib/lighthouse.mjs";
import { measureThroughput, pageSizes } from "./lib/load.mjs";
import { killAllNow, start, stopAll, waitForHttp, waitForPortFree } from "./lib/processes.mjs";
import { budgets, render, sections } from "./lib/report.mjs";
import { serveApp, serveAppWithNextStart, serveBaseline, serveFloor } from "./lib/servers.mjs";
import { checkPost, measureSignups, preparePost } from "./lib/signup.mjs";
import { weighPages } from "./lib/weights.mjs";
import { timeHydration } from "./lib/hydration.mjs";
import { measureConsole } from "./lib/console.mjs";

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
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    node: process.version,
    "load at start": os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" / "),
  };

  const receiver = start(
    process.execPath,
    [fileURLToPath(new URL("./servers/receiver.mjs", import.meta.url)), String(ports.receiver)],
    { log: `${paths.runs}receiver.log` },
  );
  await waitForHttp(urlOf(ports.receiver, "/__stats"), receiver);
  log("building and starting the app, the floor and the baseline…");
  const app = await serveApp();
  const appNextStart = await serveAppWithNextStart();
  const baseline = await serveBaseline();
  const both = [pages.home, pages.signup];
  const floor = await serveFloor(await pageSizes(app.url, both));

  // The floor and both pages (and the baseline's), audited in turn.
  const auditTargets = [
    { label: "floor", url: floor.url },
    ...both.map((path) => ({ label: path, url: new URL(path, app.url).href })),
    ...(baseline ? both.map((path) => ({ label: `${path} (before)`, url: new URL(path, baseline.url).href })) : []),
  ];
  const results = {
    machine,
    weights: await measure("weights", async () => [
      ...(await weighPages(Object.values(pages), app.url, pages.notFound)),
      // The baseline's two pages beside, for the before/after table: weighed, not judged.
      ...(baseline ? await weighPages(both, baseline.url, undefined, " (before)") : []),
    ]),
    audits: await measure("audits", () => auditInterleaved(auditTargets, "devtools")),
    simulated: await measure("simulated", () => auditInterleaved(auditTargets, "simulate")),
    hydration: await measure("hydration", () =>
      timeHydration(auditTargets.filter((target) => target.label !== "floor")),
    ),
    throughput: await measure("throughput", () =>
      measureThroughput(both, { app: app.url, nextStart: appNextStart.url, floor: floor.url, baseline: baseline?.url }),
    ),
    signup: await measure("signup", async () => {
      const post = await preparePost(new URL(pages.signup, app.url).href);
      const check = await checkPost(post);
      // Timing a post that does not work would measure the wrong thing.
      if (!check.ok) return { check };
      const before = baseline && (await preparePost(new URL(pages.signup, baseline.url).href));
      return { check, builds: await measureSignups(post, before, log) };
    }),
    console: await measure("console", () => measureConsole()),
  };
  const report = render(title, sections(results, baseline), budgets(results));
  process.stdout.write(report);
  await writeFile(paths.results, report);
  log(`written to ${paths.results}`);
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
