import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { chromeFlags, chromiumPath, durations, paths, ports } from "./config.mjs";
import { median } from "./load.mjs";
import { run, waitForPortFree } from "./processes.mjs";

const cli = fileURLToPath(new URL("../../node_modules/lighthouse/cli/index.js", import.meta.url));
export const categories = ["performance", "accessibility", "best-practices", "seo"];

// Lighthouse's mobile run, a fresh Chromium each. "devtools" throttles while the page loads; "simulate" (what
// PageSpeed Insights shows) estimates slow 4G from a fast load. Targets take turns run after run, so a slow minute of
// the machine weighs on all alike.
export async function auditInterleaved(targets, method = "devtools", runs = durations.lighthouseRuns) {
  const reports = new Map(targets.map((target) => [target.label, []]));
  for (let i = 1; i <= runs; i += 1) {
    for (const target of targets) {
      for (let attempt = 1; ; attempt += 1) {
        try {
          reports
            .get(target.label)
            .push(await runOnce(target, method, `${method}-${i}${attempt > 1 ? `-attempt${attempt}` : ""}`));
          break;
        } catch (error) {
          if (attempt === 3) throw error;
        }
      }
    }
  }
  return targets.map((target) => summarize(target.label, reports.get(target.label)));
}

async function runOnce(target, method, runName) {
  // Chrome's launcher reuses a browser it finds on its port, and the previous one may still be closing.
  await waitForPortFree(ports.chrome, "127.0.0.1");
  const base = `${paths.runs}lighthouse-${target.label.replace(/\W+/g, "-").replace(/^-|-$/g, "") || "home"}-${runName}`;
  const args = [cli, target.url, "--output=json", "--output=html", `--output-path=${base}`, `--port=${ports.chrome}`];
  args.push(
    `--chrome-flags=${["--headless=new", "--no-sandbox", ...chromeFlags].join(" ")}`,
    "--no-enable-error-reporting",
    `--throttling-method=${method}`,
  );
  // Lighthouse's Chrome launcher cleans up its browser and profile on SIGINT.
  const failure = await run(process.execPath, args, {
    env: { CHROME_PATH: chromiumPath },
    log: `${base}.log`,
    stopSignal: "SIGINT",
  }).catch((error) => error);
  // Lighthouse exits 1 on a page it could not load, and says why in the report.
  const report = await readFile(`${base}.report.json`, "utf8").then(JSON.parse, () => undefined);
  if (report?.runtimeError) throw new Error(`${report.runtimeError.code} (see ${base}.log)`);
  if (failure || !report) throw failure ?? new Error(`Lighthouse wrote no report (see ${base}.log)`);
  return report;
}

function summarize(label, lhrs) {
  const scoresOf = (id) => lhrs.map((lhr) => Math.round((lhr.categories[id]?.score ?? 0) * 100));
  const values = (id) => lhrs.map((lhr) => lhr.audits[id]?.numericValue ?? Number.NaN);
  const metric = (id) => median(values(id));
  return {
    label,
    runs: lhrs.length,
    scores: Object.fromEntries(categories.map((id) => [id, median(scoresOf(id))])),
    allScores: Object.fromEntries(categories.map((id) => [id, scoresOf(id)])),
    metrics: {
      lcpMs: metric("largest-contentful-paint"),
      tbtMs: metric("total-blocking-time"),
      cls: metric("cumulative-layout-shift"),
    },
    // Every run's LCP, in run order: the simulated one is bimodal, so its slowest run is judged too.
    lcpRunsMs: values("largest-contentful-paint"),
    failing: failingAudits(lhrs),
  };
}

// Modes whose score says nothing about pass or fail.
const unscored = new Set(["notApplicable", "manual", "informative"]);

/** Each audit that cost a point in any run, in a category below 100 there: where to start looking (the HTML reports say more). */
function failingAudits(lhrs) {
  const found = new Map();
  for (const lhr of lhrs) {
    for (const category of categories) {
      const { score, auditRefs = [] } = lhr.categories[category] ?? {};
      if (score === 1) continue;
      for (const { id, group, weight } of auditRefs) {
        const audit = lhr.audits[id];
        // Hidden audits repeat visible ones; an insight of weight 0 that errors moves no score.
        if (
          group === "hidden" ||
          !audit ||
          unscored.has(audit.scoreDisplayMode) ||
          (audit.scoreDisplayMode === "error" && weight === 0)
        )
          continue;
        if (audit.scoreDisplayMode !== "error" && (audit.score === null || audit.score >= 1)) continue;
        const seen = found.get(id) ?? {
          category,
          id,
          title: audit.title,
          value: audit.displayValue ?? audit.errorMessage ?? "",
          runs: 0,
        };
        found.set(id, { ...seen, runs: seen.runs + 1 });
      }
    }
  }
  return [...found.values()];
}
