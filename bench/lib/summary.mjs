import { budgets, connections, durations, KB, pages } from "./config.mjs";
import { categories, throttling } from "./lighthouse.mjs";

/**
 * Turns the measurements into report sections and judges the budgets.
 * A measurement that failed is an Error in `results`; its section says so and
 * every budget that depends on it fails.
 *
 * @typedef {import("./report.mjs").Section} Section
 * @typedef {{ name: string, value: string, pass: boolean }} Budget
 */

const kb = (bytes) => (bytes / KB).toFixed(1);
const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
const failed = (value) => value instanceof Error;

/** A measurement BENCH_ONLY left out: its section says so, and its budgets are not judged. */
export class NotRun extends Error {}
const errorSection = (title, error) => ({ title, lines: [{ text: `ERROR: ${error.message}` }] });

/** @param {string[]} interruptions @returns {Section} */
export function machineSection(machine, interruptions) {
  const labels = {
    date: "Date",
    cpu: "CPU",
    memory: "Memory",
    os: "OS",
    loadAtStart: "Load average at start (1/5/15 min)",
    node: "Node",
    chromium: "Chromium",
    next: "Next",
    lighthouse: "Lighthouse",
    commit: "App commit",
  };
  return {
    title: "Machine",
    lines: [
      ...Object.entries(labels).map(([key, label]) => ({ text: `${label}: ${machine[key]}` })),
      { text: `Server interruptions: ${interruptions.length ? interruptions.join("; ") : "none"}` },
    ],
  };
}

/** @returns {Section} */
export function staticSection(checks) {
  if (failed(checks)) return errorSection("Static pages", checks);
  return {
    title: "Static pages",
    note: "Read from .next/prerender-manifest.json and the route table of `next build` (○ static, ƒ dynamic).",
    table: {
      head: ["Page", "Prerendered", "Build mark", "Revalidate"],
      rows: checks.map((c) => [c.path, c.prerendered ? "yes" : "NO", c.buildMark, c.revalidateSeconds ? `${c.revalidateSeconds} s` : "-"]),
    },
  };
}

/** @returns {Section} */
export function weightSection(weights) {
  const title = "Bytes each page loads (gzip -9 of the document and of every script and stylesheet requested)";
  if (failed(weights)) return errorSection(title, weights);
  const lines = weights.flatMap((w) => [
    ...w.consoleErrors.map((text) => ({ text: `${w.path} console error: ${text}` })),
    ...w.failedRequests.map((text) => ({ text: `${w.path} failed request: ${text}` })),
  ]);
  return {
    title,
    note: "KB = 1024 bytes. Fresh browser context per page, measured after network idle. HTML KB is the document itself, which carries the stylesheet when it is inlined.",
    table: {
      head: ["Page", "HTML KB", "JS KB", "JS files", "CSS KB", "CSS files", "Console errors", "Failed requests"],
      numeric: [false, true, true, true, true, true, true, true],
      rows: weights.map((w) => [
        w.path,
        kb(w.htmlGzip),
        kb(w.jsGzip),
        String(w.jsFiles),
        kb(w.cssGzip),
        String(w.cssFiles),
        String(w.consoleErrors.length),
        String(w.failedRequests.length),
      ]),
    },
    lines,
  };
}

const signed = (value, digits = 0) => (Number.isFinite(value) ? `${value > 0 ? "+" : ""}${value.toFixed(digits)}` : "n/a");

/**
 * @param {keyof typeof throttling} method  the applied runs (judged) also list LCP elements and failing audits
 * @returns {Section[]}
 */
export function lighthouseSections(audits, baselineLabel, method) {
  const how = throttling[method].title;
  const title = `Lighthouse (mobile, ${how}, median of runs, interleaved with the framework floor)`;
  if (failed(audits)) return [errorSection(title, audits)];
  const floor = audits.find((a) => a.path === "floor");
  const table = {
    head: ["Page", "Runs", "Performance", "Accessibility", "Best practices", "SEO", "LCP ms", "TBT ms", "CLS", "Perf − floor", "LCP − floor ms", "TBT − floor ms", "Benchmark index"],
    numeric: [false, true, true, true, true, true, true, true, true, true, true, true, true],
    rows: audits.map((a) => [
      a.path === "floor" ? "floor (empty App Router page)" : a.path,
      String(a.runs),
      ...categories.map((id) => `${a.scores[id]}${a.runs > 1 ? ` (${a.allScores[id].join("/")})` : ""}`),
      fixed(a.metrics.lcpMs),
      fixed(a.metrics.tbtMs),
      fixed(a.metrics.cls, 3),
      ...(a === floor || !floor
        ? ["-", "-", "-"]
        : [
            signed(a.scores.performance - floor.scores.performance),
            signed(a.metrics.lcpMs - floor.metrics.lcpMs),
            signed(a.metrics.tbtMs - floor.metrics.tbtMs),
          ]),
      fixed(a.metrics.benchmarkIndex),
    ]),
  };
  const lines = audits.flatMap((a) => [
    { text: `${a.path} LCP element (median run):` },
    ...a.lcpElement.map((text) => ({ text, level: 1 })),
    ...a.retries.map((text) => ({ text: `${a.path}: Lighthouse retried ${text}` })),
    ...a.failing.flatMap((audit) => [
      {
        text:
          `${a.path} [${audit.category}] ${audit.id}: ${audit.title}; score ${audit.score ?? "error"}` +
          `${audit.displayValue ? `, ${audit.displayValue}` : ""} (failed in ${audit.runsFailed}/${a.runs} runs)`,
      },
      ...audit.details.map((text) => ({ text, level: 1 })),
    ]),
  ]);
  const sections = [
    {
      title,
      note:
        "Scores 0-100, the runs' own scores in brackets. The floor is an empty App Router page on the same next, react and react-dom (bench/floor), measured in turn with the site's pages; the difference to it is the figure, since the absolute times drift with the machine. Benchmark index: Lighthouse's measure of the machine's speed, which its simulated throttling scales from (lower is slower). " +
        (method === "applied"
          ? "Chrome throttles network and CPU while the page loads; the budgets are judged on these runs."
          : "Reported beside the applied runs, not judged: see bench/README.md, \"Applied throttling\", for why the model misreads these pages over loopback."),
      table,
    },
  ];
  if (baselineLabel) {
    const rows = [pages.home, pages.signup].flatMap((path) => {
      const [before, after] = [audits.find((a) => a.path === `${path} (before)`), audits.find((a) => a.path === path)];
      if (!before || !after) return [];
      return [[
        path,
        `${before.scores.performance} → ${after.scores.performance}`,
        `${fixed(before.metrics.lcpMs)} → ${fixed(after.metrics.lcpMs)} (${signed(after.metrics.lcpMs - before.metrics.lcpMs)})`,
        `${fixed(before.metrics.tbtMs)} → ${fixed(after.metrics.tbtMs)} (${signed(after.metrics.tbtMs - before.metrics.tbtMs)})`,
        floor ? `${signed(before.metrics.lcpMs - floor.metrics.lcpMs)} → ${signed(after.metrics.lcpMs - floor.metrics.lcpMs)}` : "n/a",
      ]];
    });
    sections.push({
      title: `What the change moved (Lighthouse, ${how}, same run)`,
      note: `Before is ${baselineLabel}, built and served beside this tree (BENCH_BASELINE), its pages audited in turn with this tree's and the floor's.`,
      table: { head: ["Page", "Performance", "LCP ms", "TBT ms", "LCP − floor ms"], rows },
    });
  }
  if (method !== "applied") return sections;
  sections.push({
    title: `Lighthouse (${how}): LCP elements, and audits that cost points`,
    note: audits.some((a) => a.failing.length)
      ? "Every audit scoring below 1 in a category below 100, with the worst run's details. Full reports: bench/.runs/lighthouse-*.report.html"
      : "None: every category scored 100 in every run.",
    lines,
  });
  return sections;
}

/** @returns {Section} */
export function screenshotSection(files) {
  const title = "Screenshots (375 and 1280 px wide, first screen and whole page; first visit with an empty cache, then the same page from the cache)";
  if (failed(files)) return errorSection(title, files);
  return { title, lines: files.map((file) => ({ text: file.replace(/^.*\/bench\//, "bench/") })) };
}

/** @returns {Section} */
export function throughputSection(rows, baselineLabel) {
  const title = `Throughput (autocannon, ${connections} connections, ${durations.load} s each)`;
  if (failed(rows)) return errorSection(title, rows);
  const withBaseline = Boolean(baselineLabel);
  const baselineNote = withBaseline ? ` "Before" is ${baselineLabel}, built and served beside this tree in the same run (BENCH_BASELINE).` : "";
  return {
    title,
    note: `Next against a bare node:http server answering the same bytes, measured one after the other. The ratio is the figure to watch; absolute numbers drift with the machine's load.${baselineNote}`,
    table: {
      head: [
        "Page",
        "Next req/s",
        "Next p99 ms",
        "Bare req/s",
        "Bare p99 ms",
        "Next/bare req/s",
        ...(withBaseline ? ["Before req/s", "Before/bare req/s"] : []),
        "Non-2xx or errors",
      ],
      numeric: [false, true, true, true, true, true, ...(withBaseline ? [true, true] : []), true],
      rows: rows.map(({ path, next, bare, baseline }) => [
        path,
        fixed(next.perSecond),
        fixed(next.p99Ms),
        fixed(bare.perSecond),
        fixed(bare.p99Ms),
        fixed(next.perSecond / bare.perSecond, 3),
        ...(withBaseline && baseline ? [fixed(baseline.perSecond), fixed(baseline.perSecond / bare.perSecond, 3)] : []),
        String([next, bare, baseline].reduce((sum, result) => sum + (result ? result.non2xx + result.errors : 0), 0)),
      ]),
    },
  };
}

/** @returns {Section} */
export function signupSection(signup) {
  const title = "No-JavaScript sign-up post (multipart server-action form to /signup)";
  if (failed(signup)) return errorSection(title, signup);
  const { check, latency, sustained, baseline } = signup;
  const lines = [{ text: `Check: ${check.ok ? "HTTP 200, \"You're on the waitlist!\", one POST at the receiver" : `FAILED: ${check.problems.join("; ")}`}` }];
  if (failed(latency)) lines.push({ text: `Latency: ERROR: ${latency.message}` });
  else if (latency) {
    lines.push({
      text:
        `Latency over ${latency.posts} sequential posts: p50 ${fixed(latency.totalP50Ms, 1)} ms, p99 ${fixed(latency.totalP99Ms, 1)} ms end to end; ` +
        `added by the server on top of the receiver: p50 ${fixed(latency.addedP50Ms, 1)} ms, p99 ${fixed(latency.addedP99Ms, 1)} ms ` +
        `(receiver's own handling p99 ${fixed(latency.receiverP99Ms, 2)} ms)`,
    });
  }
  const loads = (result) =>
    `${fixed(result.perSecond, 1)} sign-ups/s answered 2xx, the median of ${result.runs.length} loads (${result.runs.map((r) => fixed(r)).join(", ")}); ` +
    `${result.ok} in all, p50 ${fixed(result.p50Ms)} ms, worst p99 ${fixed(result.p99Ms)} ms; ` +
    `${result.non2xx} non-2xx, ${result.errors} connection errors of which ${result.timeouts} timeouts`;
  if (failed(sustained)) lines.push({ text: `Sustained: ERROR: ${sustained.message}` });
  else if (sustained) {
    lines.push({
      text:
        `Sustained (${connections} connections, loads of ${durations.signupLoad} s after ${durations.signupWarmup} s of warm-up` +
        `${signup.pinned ? "; servers on their own cores, load generator and receiver on the last one" : ""}): ${loads(sustained)}; ` +
        `the receiver got ${sustained.deliveries} deliveries (posts still in flight when a load stopped included)`,
    });
  }
  if (baseline && !failed(baseline.latency) && !failed(baseline.sustained)) {
    lines.push({
      text:
        `Before (${baseline.label}, same run, warmed alike, loads in blocks of this, before, before, this): added by the server p50 ${fixed(baseline.latency.addedP50Ms, 1)} ms, ` +
        `p99 ${fixed(baseline.latency.addedP99Ms, 1)} ms; sustained ${loads(baseline.sustained)}`,
    });
  }
  return { title, lines };
}

/**
 * @param {Record<string, unknown>} results
 * @returns {Budget[]}
 */
export function judgeBudgets({ staticChecks, weights, audits, signup, leads }) {
  /** @type {Budget[]} */
  const list = [];
  const add = (name, value, pass) => list.push({ name, value, pass });
  const unmeasured = (name, error) => {
    if (!(error instanceof NotRun)) add(name, `not measured: ${error.message}`, false);
  };

  const floor = failed(audits) ? undefined : audits.find((a) => a.path === "floor");
  // The Lighthouse budgets are judged on the applied runs only.
  const judged = `(${throttling.applied.title})`;
  for (const path of [pages.home, pages.signup]) {
    const checks = [
      [`${path}: performance >= the floor's ${judged}`, (a) => `${a.scores.performance} vs ${floor.scores.performance}`, (a) => a.scores.performance >= floor.scores.performance],
      [`${path}: LCP <= the floor's + 300 ms ${judged}`, (a) => `${fixed(a.metrics.lcpMs)} vs ${fixed(floor.metrics.lcpMs)} ms (${signed(a.metrics.lcpMs - floor.metrics.lcpMs)})`, (a) => a.metrics.lcpMs <= floor.metrics.lcpMs + 300],
      [`${path}: TBT <= the floor's + 50 ms ${judged}`, (a) => `${fixed(a.metrics.tbtMs)} vs ${fixed(floor.metrics.tbtMs)} ms (${signed(a.metrics.tbtMs - floor.metrics.tbtMs)})`, (a) => a.metrics.tbtMs <= floor.metrics.tbtMs + 50],
      [`${path}: accessibility, best practices and SEO 100`, (a) => categories.slice(1).map((id) => `${id} ${a.scores[id]}`).join(", "), (a) => categories.slice(1).every((id) => a.scores[id] === 100)],
    ];
    for (const [name, value, pass] of checks) {
      if (failed(audits)) unmeasured(name, audits);
      else if (!floor) unmeasured(name, new Error("the floor was not measured"));
      else {
        const audit = audits.find((a) => a.path === path);
        add(name, value(audit), pass(audit));
      }
    }
  }
  for (const [path, limit] of Object.entries(budgets.jsBytes)) {
    const name = `Gzipped JS on ${path} <= ${limit / KB} KB`;
    if (failed(weights)) unmeasured(name, weights);
    else {
      const bytes = weights.find((w) => w.path === path).jsGzip;
      add(name, `${kb(bytes)} KB`, bytes <= limit);
    }
  }
  if (failed(audits)) unmeasured(`CLS 0 ${judged}`, audits);
  else {
    const pagesOnly = audits.filter((a) => a.path === pages.home || a.path === pages.signup);
    add(`CLS 0 ${judged}`, pagesOnly.map((a) => `${a.path} ${fixed(a.metrics.cls, 3)}`).join(", "), pagesOnly.every((a) => a.metrics.cls === 0));
  }
  if (failed(weights)) {
    unmeasured("No console errors", weights);
    unmeasured("No failed requests", weights);
  } else {
    const count = (key) => weights.map((w) => `${w.path} ${w[key].length}`).join(", ");
    add("No console errors", count("consoleErrors"), weights.every((w) => w.consoleErrors.length === 0));
    add("No failed requests", count("failedRequests"), weights.every((w) => w.failedRequests.length === 0));
  }
  for (const path of [pages.home, pages.signup]) {
    const name = `${path} is static`;
    if (failed(staticChecks)) unmeasured(name, staticChecks);
    else {
      const check = staticChecks.find((c) => c.path === path);
      add(name, `prerendered ${check.prerendered ? "yes" : "no"}, build mark ${check.buildMark}`, check.prerendered);
    }
  }
  if (!failed(signup) && signup.baseline) {
    const { latency, sustained, baseline } = signup;
    const latencyName = "No-JS sign-up: server time added p50 <= before + 5 ms";
    const rateName = "No-JS sign-ups per second >= 90% of before";
    if ([latency, baseline.latency].some(failed)) unmeasured(latencyName, [latency, baseline.latency].find(failed));
    else {
      const added = latency.addedP50Ms - baseline.latency.addedP50Ms;
      add(latencyName, `${fixed(latency.addedP50Ms, 1)} vs ${fixed(baseline.latency.addedP50Ms, 1)} ms (${signed(added, 1)})`, added <= 5);
    }
    if ([sustained, baseline.sustained].some(failed)) unmeasured(rateName, [sustained, baseline.sustained].find(failed));
    else {
      const ratio = sustained.perSecond / baseline.sustained.perSecond;
      add(rateName, `${fixed(sustained.perSecond, 1)} vs ${fixed(baseline.sustained.perSecond, 1)} (${fixed(ratio * 100)}%)`, ratio >= 0.9);
    }
  }
  if (failed(leads)) unmeasured(`Drain of ${durations.drainLeads} leads at concurrency 4 < 30 s`, leads);
  else {
    add(`Drain of ${durations.drainLeads} leads at concurrency 4 < 30 s`, `${fixed(leads.drainConcurrent.seconds, 1)} s`, leads.drainConcurrent.seconds < 30);
    const health = leads.idle.healthMs;
    if (health) add(`GET /api/health with ${leads.idle.leads} open leads, median < 50 ms`, `${fixed(health.median, 1)} ms (max ${fixed(health.max, 1)} ms, ${health.runs} calls)`, health.median < 50);
  }
  const name = "No-JavaScript sign-up post works (check, not a budget)";
  if (failed(signup)) unmeasured(name, signup);
  else add(name, signup.check.ok ? "200, success page, delivered" : signup.check.problems.join("; "), signup.check.ok);
  return list;
}

/** @returns {Section} */
export function leadsSection(leads) {
  const title = "Leads: redelivery drain and idle cost";
  if (failed(leads)) return errorSection(title, leads);
  const drain = (d) => `${fixed(d.seconds, 1)} s for ${d.delivered} leads`;
  const idle = (i) =>
    `${fixed(i.cpuSeconds, 2)} CPU s over ${i.seconds} s holding ${i.leads} leads, none due${i.healthMs ? `; /api/health ${fixed(i.healthMs.median, 1)} ms median` : ""}`;
  const rows = [
    ["This tree", drain(leads.drainConcurrent), drain(leads.drainSerial), idle(leads.idle)],
    ...(leads.baseline ? [[`Before (${leads.baseline.label})`, `${drain(leads.baseline.drain)} (serial: it has no concurrency)`, "", idle(leads.baseline.idle)]] : []),
  ];
  return {
    title,
    table: { head: ["Build", "Drain, concurrency 4", "Drain, concurrency 1", "Idle"], rows },
    lines: [{ text: `Drain: ${durations.drainLeads} due leads, a receiver answering each in 200 ms, timed from the server's first answer to the last delivery.` }],
  };
}

/** @param {Budget[]} list @returns {Section} */
export function budgetSection(list) {
  return {
    title: "Budgets",
    table: {
      head: ["Result", "Budget", "Measured"],
      rows: list.map((b) => [b.pass ? "PASS" : "FAIL", b.name, b.value]),
    },
    lines: [{ text: summaryLine(list) }],
  };
}

/** @param {Budget[]} list */
export function summaryLine(list) {
  const failures = list.filter((b) => !b.pass);
  return failures.length
    ? `SUMMARY: ${failures.length} of ${list.length} budgets FAILED: ${failures.map((b) => b.name).join("; ")}`
    : `SUMMARY: all ${list.length} budgets passed`;
}
