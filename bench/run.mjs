/**
 * `npm run bench`: builds the app, serves it on loopback with a webhook
 * receiver, measures what a visitor and the server experience, and prints the
 * results (also written to bench/RESULTS.md). A missed budget is a result, not
 * a failure: the bench exits 0 unless it could not measure.
 *
 * BENCH_PORT moves its six ports (default 4100-4105); BENCH_QUICK=1 runs
 * shorter loads and one Lighthouse run, to try the bench itself;
 * BENCH_BASELINE=<git ref> also builds and measures that commit (lib/baseline.mjs);
 * BENCH_ONLY=signup,leads runs only the measurements named (keys of `results`).
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { appServer, buildApp } from "./lib/app.mjs";
import { baselineRef, startBaseline } from "./lib/baseline.mjs";
import { pinApart } from "./lib/cpu-pinning.mjs";
import { host, nextURL, only, pages, paths, ports, quick, receiverURL } from "./lib/config.mjs";
import { startFloor } from "./lib/floor.mjs";
import { auditInterleaved } from "./lib/lighthouse.mjs";
import { takeScreenshots } from "./lib/screenshots.mjs";
import { measureLeads } from "./lib/leads.mjs";
import { describeMachine } from "./lib/machine.mjs";
import { weighPages } from "./lib/page-weight.mjs";
import { assertPortFree, killAllNow, start, stopAll, waitForHttp } from "./lib/processes.mjs";
import { renderMarkdown, renderText } from "./lib/report.mjs";
import { checkSignupPost, measureSignups, prepareSignupPost } from "./lib/signup-post.mjs";
import { checkStatic } from "./lib/static.mjs";
import * as summary from "./lib/summary.mjs";
import { measureThroughput } from "./lib/throughput.mjs";

const receiverScript = fileURLToPath(new URL("./servers/receiver.mjs", import.meta.url));
const title = `Benchmark: chef-assistant-site${quick ? " (BENCH_QUICK: shortened runs, not for comparison)" : ""}`;

const log = (message) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

async function main() {
  await rm(paths.runs, { recursive: true, force: true });
  await mkdir(paths.runs, { recursive: true });
  for (const port of Object.values(ports)) await assertPortFree(port, host);
  const machine = describeMachine();

  log("building (npm run build)…");
  const buildLogFile = await buildApp().catch(async (error) => {
    const buildLog = await readFile(`${paths.runs}build.log`, "utf8").catch(() => "");
    process.stderr.write(`${buildLog.split("\n").slice(-40).join("\n")}\n`);
    throw error;
  });
  const buildLog = await readFile(buildLogFile, "utf8");

  log("starting the webhook receiver and next start…");
  const receiver = start(process.execPath, [receiverScript, String(ports.receiver)], { log: `${paths.runs}receiver.log` });
  await waitForHttp(`${receiverURL}/__stats`, receiver);
  const app = appServer(log);
  await app.ensureRunning();
  const baseline = baselineRef ? await startBaseline(log) : undefined;
  const floor = await startFloor(log);

  /**
   * Runs one measurement; its failure becomes its result, so that the others
   * still run and the report says what went wrong where. One that the server's
   * death spoiled runs again on a new server.
   */
  async function measure(name, task, key) {
    if (only && !only.includes(key)) return new summary.NotRun(`not run (BENCH_ONLY=${only.join(",")})`);
    for (let attempt = 1; ; attempt += 1) {
      log(`${name}…`);
      const exitsBefore = app.unexpectedExits.length;
      try {
        await app.ensureRunning();
        return await task();
      } catch (error) {
        log(`${name} failed: ${error.stack ?? error}`);
        if (attempt === 1 && app.unexpectedExits.length > exitsBefore) continue;
        return error instanceof Error ? error : new Error(String(error));
      }
    }
  }

  const audited = lighthouseTargets(floor, baseline);
  const results = {
    staticChecks: await measure("static pages", () => checkStatic([pages.home, pages.signup, pages.terms, pages.privacy], buildLog), "staticChecks"),
    weights: await measure("page weights", () => weighPages(Object.values(pages), pages.notFound), "weights"),
    // Judged: Chrome throttles the load itself. Reported beside it: Lighthouse's model.
    audits: await measure("Lighthouse, applied throttling (the floor, / and /signup, interleaved)", () =>
      auditInterleaved(audited, "applied"), "audits"),
    simulatedAudits: await measure("Lighthouse, simulated throttling (the floor, / and /signup, interleaved)", () =>
      auditInterleaved(audited, "simulated"), "simulatedAudits"),
    screenshots: await measure("screenshots", () =>
      takeScreenshots([pages.home, pages.signup, pages.terms, pages.privacy].map((path) => ({ label: path, url: new URL(path, nextURL).href }))), "screenshots"),
    throughput: await measure("throughput", () => measureThroughput([pages.home, pages.signup], baseline?.url), "throughput"),
    signup: await measure("no-JavaScript sign-up", async () => {
      const post = await prepareSignupPost(pages.signup);
      const check = await checkSignupPost(post);
      // Timing a post that does not work would measure the wrong thing.
      if (!check.ok) return { check };
      const before = baseline ? await prepareSignupPost(pages.signup, baseline.url) : undefined;
      const pinning = pinApart({ servers: [app.pgid(), baseline?.pgid], helpers: [receiver.child.pid] });
      try {
        const measured = await measureSignups(post, before, log);
        return { check, pinned: pinning.pinned, ...measured, ...(baseline ? { baseline: { label: baseline.label, ...measured.baseline } } : {}) };
      } finally {
        pinning.restore();
      }
    }, "signup"),
    leads: await measure("leads: drain and idle cost", () => measureLeads(baseline, log), "leads"),
  };

  const budgets = summary.judgeBudgets(results);
  const sections = [
    summary.machineSection(machine, app.unexpectedExits),
    summary.staticSection(results.staticChecks),
    summary.weightSection(results.weights),
    ...summary.lighthouseSections(results.audits, baseline?.label, "applied"),
    ...summary.lighthouseSections(results.simulatedAudits, baseline?.label, "simulated"),
    summary.screenshotSection(results.screenshots),
    summary.throughputSection(results.throughput, baseline?.label),
    summary.signupSection(results.signup),
    summary.leadsSection(results.leads),
    summary.budgetSection(budgets),
  ];
  process.stdout.write(`${renderText(title, sections)}\n`);
  await writeFile(paths.results, renderMarkdown(title, sections));
  log(`written to ${paths.results}`);

  const broken = Object.entries(results).filter(([, value]) => value instanceof Error && !(value instanceof summary.NotRun));
  if (broken.length) {
    log(`could not measure: ${broken.map(([name]) => name).join(", ")}`);
    process.exitCode = 1;
  }
}

/** The floor, / and /signup, and the baseline's pages: before and after, same run. */
function lighthouseTargets(floor, baseline) {
  return [
    { label: "floor", url: floor.url },
    ...[pages.home, pages.signup].map((path) => ({ label: path, url: new URL(path, nextURL).href })),
    ...(baseline ? [pages.home, pages.signup].map((path) => ({ label: `${path} (before)`, url: new URL(path, baseline.url).href })) : []),
  ];
}

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping the servers…`);
    await stopAll();
    process.exit(130);
  });
}
process.on("exit", killAllNow);

try {
  await main();
} catch (error) {
  log(`failed: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await stopAll();
}
