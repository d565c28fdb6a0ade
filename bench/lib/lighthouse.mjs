import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { chromiumPath, durations, nextURL, paths, ports, quietChromeFlags } from "./config.mjs";
import { run, waitForPortFree } from "./processes.mjs";
import { median } from "./stats.mjs";

const cli = fileURLToPath(new URL("../../node_modules/lighthouse/cli/index.js", import.meta.url));
const chromeFlags = ["--headless=new", "--no-sandbox", ...quietChromeFlags];
export const categories = ["performance", "accessibility", "best-practices", "seo"];

/**
 * @typedef {object} FailingAudit
 * @property {string} category
 * @property {string} id
 * @property {string} title
 * @property {number | null} score       the lowest over the runs
 * @property {string} displayValue
 * @property {number} runsFailed
 * @property {string[]} details          a few of the audit's items, for whoever fixes it
 */

/**
 * @typedef {object} LighthouseResult
 * @property {string} path
 * @property {number} runs
 * @property {Record<string, number>} scores   medians, 0-100
 * @property {Record<string, number[]>} allScores
 * @property {{ lcpMs: number, tbtMs: number, cls: number, benchmarkIndex: number }} metrics   medians
 * @property {string[]} lcpElement   the LCP element and the phases of its LCP, in the run with the median LCP
 * @property {FailingAudit[]} failing
 * @property {string[]} reports  the saved HTML reports, one per run
 * @property {string[]} retries  runs that Lighthouse could not complete and were run again
 */

/**
 * How Lighthouse slows the page down to a mid-range phone on a slow 4G link.
 * - applied: Chrome itself throttles the network (150 ms round trip, 1.6 Mbit/s)
 *   and the CPU (4x) while the page loads, and the paint is timed as it happens.
 * - simulated: Lighthouse's default. The page loads at full speed over loopback
 *   and a model (Lantern) replays the requests and tasks it saw before the
 *   paint at phone speed. Every script that arrived and ran before that paint
 *   counts, and over loopback the scripts often arrive before a page that takes
 *   longer than an empty one to lay out has painted (bench/README.md, "Applied throttling").
 * The budgets are judged on the applied runs: they time the paint a phone would see.
 */
export const throttling = {
  applied: { flag: "--throttling-method=devtools", title: "applied throttling" },
  simulated: { flag: "--throttling-method=simulate", title: "simulated throttling" },
};

/**
 * Lighthouse's mobile run, through its CLI: each run gets a fresh Chromium and
 * profile, and a crash stays in its process. The targets take turns, run after
 * run (floor, /, /signup, floor, /, ...), so a slow minute of the machine
 * weighs on all of them alike.
 *
 * @param {{ label: string, url: string }[]} targets
 * @param {keyof typeof throttling} method
 * @returns {Promise<LighthouseResult[]>}
 */
export async function auditInterleaved(targets, method, runs = durations.lighthouseRuns) {
  const reports = new Map(targets.map((target) => [target.label, []]));
  const retries = new Map(targets.map((target) => [target.label, []]));
  for (let i = 1; i <= runs; i += 1) {
    for (const target of targets) {
      for (let attempt = 1; ; attempt += 1) {
        try {
          reports.get(target.label).push(await runOnce(target, method, i, attempt));
          break;
        } catch (error) {
          if (attempt === 3) throw error;
          retries.get(target.label).push(`run ${i}: ${error.message}`);
        }
      }
    }
  }
  return targets.map((target) => ({ ...summarize(target.label, reports.get(target.label)), retries: retries.get(target.label) }));
}

async function runOnce(target, method, index, attempt) {
  // Chrome's launcher reuses a browser it finds on its port, and the previous
  // run's browser may still be shutting down there.
  await waitForPortFree(ports.chrome, "127.0.0.1");
  const page = target.label.replace(/\W+/g, "-").replace(/-$/, "") || "-home";
  // A failed attempt keeps its log under its own name, for whoever looks into it.
  const name = `lighthouse-${method}${page.startsWith("-") ? page : `-${page}`}-${index}${attempt > 1 ? `-attempt${attempt}` : ""}`;
  const base = `${paths.runs}${name}`;
  const failure = await run(
    process.execPath,
    [
      cli,
      target.url,
      "--output=json",
      "--output=html",
      `--output-path=${base}`,
      `--chrome-flags=${chromeFlags.join(" ")}`,
      `--port=${ports.chrome}`,
      "--no-enable-error-reporting",
      throttling[method].flag,
    ],
    // Lighthouse's Chrome launcher cleans up its browser and profile on SIGINT.
    { env: { CHROME_PATH: chromiumPath }, log: `${base}.log`, stopSignal: "SIGINT" },
  ).then(
    () => undefined,
    (error) => error,
  );
  // Lighthouse exits 1 on a page it could not load, and says why in the report.
  const report = await readFile(`${base}.report.json`, "utf8").then(JSON.parse, () => undefined);
  if (report?.runtimeError) throw new Error(`${report.runtimeError.code} (see ${base}.log)`);
  if (failure || !report) throw failure ?? new Error(`Lighthouse wrote no report (see ${base}.log)`);
  return { lhr: report, html: `${base}.report.html` };
}

function summarize(path, reports) {
  const lhrs = reports.map((report) => report.lhr);
  const allScores = Object.fromEntries(
    categories.map((id) => [id, lhrs.map((lhr) => Math.round((lhr.categories[id]?.score ?? 0) * 100))]),
  );
  const metric = (id) => median(lhrs.map((lhr) => lhr.audits[id]?.numericValue ?? Number.NaN));
  return {
    path,
    runs: lhrs.length,
    scores: Object.fromEntries(categories.map((id) => [id, median(allScores[id])])),
    allScores,
    metrics: {
      lcpMs: metric("largest-contentful-paint"),
      tbtMs: metric("total-blocking-time"),
      cls: metric("cumulative-layout-shift"),
      // Lighthouse's own measure of the machine's speed: simulated throttling scales from it.
      benchmarkIndex: median(lhrs.map((lhr) => lhr.environment?.benchmarkIndex ?? Number.NaN)),
    },
    // Lighthouse 13 names the element, and splits its time, in the LCP breakdown insight.
    lcpElement: describeDetails(lcpAudit(medianRun(lhrs, "largest-contentful-paint"))?.details, 8),
    failing: failingAudits(lhrs),
    reports: reports.map((report) => report.html),
  };
}

function lcpAudit(lhr) {
  return lhr.audits["largest-contentful-paint-element"] ?? lhr.audits["lcp-breakdown-insight"];
}

function medianRun(lhrs, auditId) {
  const sorted = [...lhrs].sort((a, b) => (a.audits[auditId]?.numericValue ?? 0) - (b.audits[auditId]?.numericValue ?? 0));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

// A metric's own audit has no details; these audits say what makes it slow.
const explainedBy = {
  "total-blocking-time": ["long-tasks", "bootup-time"],
  "max-potential-fid": ["long-tasks"],
};

// Modes whose score says nothing about pass or fail.
const unscored = new Set(["notApplicable", "manual", "informative"]);

/** Every audit that cost a point, in any run, of a category that scored below 100 in that run. */
function failingAudits(lhrs) {
  /** @type {Map<string, FailingAudit>} */
  const found = new Map();
  for (const lhr of lhrs) {
    for (const category of categories) {
      const { score, auditRefs = [] } = lhr.categories[category] ?? {};
      if (score === 1) continue;
      // Hidden audits repeat visible ones.
      for (const { id, group, weight } of auditRefs) {
        if (group === "hidden") continue;
        const audit = lhr.audits[id];
        if (!audit || unscored.has(audit.scoreDisplayMode)) continue;
        // Lighthouse 13 wants Node 22: on Node 20 a few insights (weight 0, so no
        // effect on any score) fail on iterator helpers. Not the page's doing.
        if (audit.scoreDisplayMode === "error" && weight === 0) continue;
        const failed = audit.scoreDisplayMode === "error" || (audit.score !== null && audit.score < 1);
        if (!failed) continue;
        const key = `${category}/${id}`;
        const seen = found.get(key);
        if (seen && (seen.score ?? 0) <= (audit.score ?? 0)) {
          seen.runsFailed += 1;
          continue;
        }
        found.set(key, {
          category,
          id,
          title: audit.title,
          score: audit.score,
          displayValue: audit.displayValue ?? audit.errorMessage ?? "",
          runsFailed: (seen?.runsFailed ?? 0) + 1,
          details: auditDetails(lhr, id),
        });
      }
    }
  }
  return [...found.values()];
}

function auditDetails(lhr, id) {
  // Reported for every page anyway, failing or not.
  if (id === "largest-contentful-paint-element") return ["the element and its phases: see LCP element"];
  const related = (explainedBy[id] ?? []).flatMap((other) =>
    describeDetails(lhr.audits[other]?.details, 4).map((line) => `${other}: ${line}`),
  );
  return [...describeDetails(lhr.audits[id].details), ...related];
}

/**
 * A few lines out of an audit's details: the elements, resources or sources
 * it points at, with what fixing them would save.
 */
function describeDetails(details, limit = 6) {
  if (!details) return [];
  if (details.type === "node") return [describeNode(details)];
  if (details.type === "list") return details.items.flatMap((item) => describeDetails(item, limit)).slice(0, limit);
  if (!Array.isArray(details.items)) return [];
  const lines = details.items.slice(0, limit).map(describeItem).filter(Boolean);
  if (details.items.length > limit) lines.push(`… and ${details.items.length - limit} more`);
  return lines;
}

function describeItem(item) {
  if (item.type === "node") return describeNode(item);
  const parts = [];
  if (item.node) parts.push(describeNode(item.node));
  if (typeof item.groupLabel === "string") parts.push(item.groupLabel);
  if (typeof item.label === "string" && typeof item.duration === "number") parts.push(item.label);
  const url = item.url ?? item.source?.url;
  if (typeof url === "string") parts.push(url.replace(nextURL, ""));
  if (item.source?.line !== undefined) parts.push(`line ${item.source.line + 1}`);
  if (typeof item.source?.value === "string") parts.push(item.source.value);
  if (typeof item.wastedBytes === "number") parts.push(`${Math.round(item.wastedBytes / 1024)} KB wasted`);
  if (typeof item.wastedMs === "number") parts.push(`${Math.round(item.wastedMs)} ms wasted`);
  if (item.totalBytes) parts.push(`${Math.round(item.totalBytes / 1024)} KB`);
  if (typeof item.duration === "number") parts.push(`${Math.round(item.duration)} ms`);
  if (typeof item.startTime === "number") parts.push(`at ${Math.round(item.startTime)} ms`);
  if (typeof item.total === "number") parts.push(`${Math.round(item.total)} ms CPU, ${Math.round(item.scripting ?? 0)} ms scripting`);
  if (parts.length) return parts.join(" | ");
  // Any other table: its plain fields, e.g. a phase and its timing, a category and its duration.
  return Object.entries(item)
    .map(([key, value]) => [key, typeof value === "object" && value !== null ? value.value : value])
    .filter(([, value]) => typeof value === "string" || typeof value === "number")
    .slice(0, 4)
    .map(([key, value]) => `${key} ${typeof value === "number" ? Math.round(value * 10) / 10 : truncate(value, 80)}`)
    .join(", ");
}

function describeNode(node) {
  return [
    node.nodeLabel && `"${truncate(node.nodeLabel, 60)}"`,
    node.selector,
    node.snippet && truncate(node.snippet, 140),
    node.explanation && truncate(node.explanation, 240),
  ]
    .filter(Boolean)
    .join(" | ");
}

function truncate(text, length) {
  const flat = String(text).replace(/\s+/g, " ").trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}
