import { categories } from "./lighthouse.mjs";
import { consoleBudgetMs, htmlBudgets, jsBudgets, KB, pages, throughputBudgets } from "./config.mjs";
import { encodings } from "./load.mjs";

const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
const signed = (value, digits = 0) => `${value >= 0 ? "+" : ""}${fixed(value, digits)}`;
const kb = (bytes) => fixed(bytes / KB, 1);
const failed = (result) => result === undefined || result instanceof Error;

/** The measurements as sections (a title, a table, lines), rendered as Markdown for RESULTS.md and the terminal alike. */
export function sections(
  { machine, weights, audits, simulated, hydration, throughput, signup, console: consoleReads },
  baseline,
) {
  const out = [{ title: "Machine", lines: Object.entries(machine).map(([key, value]) => `${key}: ${value}`) }];
  const guard = (title, result, make) => {
    if (failed(result))
      out.push({ title, lines: [result ? `could not measure: ${result.message}` : "not run (BENCH_ONLY)"] });
    else out.push({ title, ...make(result) });
  };
  guard("Page weight (first visit, each file gzipped at level 9)", weights, (rows) => ({
    table: [
      [
        "Page",
        "HTML KB",
        "HTML raw KiB",
        "HTML gzip -6 KiB",
        "Stylesheet copies",
        "@font-face",
        "Font requests",
        "JS KB",
        "JS files",
        "CSS KB",
        "Console errors",
        "Failed requests",
      ],
      ...rows.map((w) => [
        w.path,
        kb(w.htmlGzip),
        kb(w.htmlRaw),
        kb(w.htmlGzipDefault),
        w.stylesheets,
        w.fontFaces,
        w.fontRequests,
        kb(w.jsGzip),
        w.jsFiles,
        kb(w.cssGzip),
        w.consoleErrors.length,
        w.failedRequests.length,
      ]),
    ],
    lines: rows.flatMap((w) => [...w.consoleErrors, ...w.failedRequests].map((problem) => `${w.path}: ${problem}`)),
  }));
  const auditSection = (title, result) =>
    guard(title, result, (rows) => {
      const floor = rows.find((a) => a.label === "floor");
      const row = (a) => [
        a.label,
        a.runs,
        ...categories.map((id) => `${a.scores[id]} [${a.allScores[id].join(" ")}]`),
        `${fixed(a.metrics.lcpMs)} [${a.lcpRunsMs.map((ms) => fixed(ms)).join(" ")}]`,
        fixed(a.metrics.tbtMs),
        fixed(a.metrics.cls, 3),
        signed(a.metrics.lcpMs - floor.metrics.lcpMs),
        signed(a.metrics.tbtMs - floor.metrics.tbtMs),
      ];
      const lost = (a) =>
        a.failing.map(
          (f) =>
            `${a.label}: ${f.category} lost points on ${f.id} (${f.title}${f.value ? `: ${f.value}` : ""}) in ${f.runs} of ${a.runs} runs`,
        );
      return {
        table: [
          ["Page", "Runs", ...categories, "LCP ms [runs]", "TBT ms", "CLS", "LCP − floor ms", "TBT − floor ms"],
          ...rows.map(row),
        ],
        lines: [
          "The floor is an empty App Router page on the same next, react and react-dom (bench/floor); the difference to it is the figure, since absolute times drift with the machine. HTML reports: bench/.runs/.",
          ...rows.flatMap(lost),
        ],
      };
    });
  auditSection("Lighthouse (mobile, applied throttling, median of runs, interleaved with the framework floor)", audits);
  auditSection(
    "Lighthouse (mobile, simulated throttling: Lighthouse's default, as PageSpeed Insights runs it; median of runs, interleaved with the floor)",
    simulated,
  );
  guard(
    "Time to hydration (mobile, applied throttling as Lighthouse's: 4x CPU, 562.5 ms latency, 1.47 Mbit/s; median and slowest of the runs, builds in turn)",
    hydration,
    (rows) => ({
      table: [
        [
          "Page",
          "Runs",
          "LCP ms (slowest)",
          "First script asked ms (slowest)",
          "Hydrated ms (slowest)",
          "Hydrated ms [runs]",
        ],
        ...rows.map((h) => [
          h.label,
          h.runs,
          `${fixed(h.lcp.median)} (${fixed(h.lcp.slowest)})`,
          `${fixed(h.firstScript.median)} (${fixed(h.firstScript.slowest)})`,
          `${fixed(h.hydrated.median)} (${fixed(h.hydrated.slowest)})`,
          h.all.map((run) => fixed(run.hydratedMs)).join(" "),
        ]),
      ],
      lines: [
        "Hydrated: when React had set the menu button's aria-expanded (/) or the sign-up's JavaScript flag (/signup), timed in the page. Reported, not budgeted: what starting the scripts after the paint costs a visitor who wants them.",
      ],
    }),
  );
  guard(
    "Throughput (GET, 20 connections, 2xx per second, median of 3 interleaved rounds; the app under npm start, the same build under next start, the framework floor's empty page, and the floor's page of text as heavy as the app's page)",
    throughput,
    (rows) => ({
      table: [
        [
          "Page",
          "Accept-Encoding",
          "Sent as (app / floor)",
          "npm start /s",
          "next start /s",
          "Floor /s",
          "npm start ÷ floor",
          "Floor, same bytes /s (bytes)",
          "npm start ÷ same bytes",
          "npm start p99 ms",
          "Floor p99 ms",
          ...(baseline ? [`Before /s (${baseline.label})`] : []),
        ],
        ...rows.map((r) => [
          r.path,
          encodings[r.encoding],
          `${r.sent.app.encoding}${r.sent.app.etag ? " + ETag" : ""} / ${r.sent.floor.encoding}`,
          fixed(r.app.perSecond),
          fixed(r.nextStart.perSecond),
          fixed(r.floor.perSecond),
          fixed(r.app.perSecond / r.floor.perSecond, 3),
          `${fixed(r.sameSize.perSecond)} (${r.sent.sameSize.bytes} / ${r.sent.app.bytes})`,
          fixed(r.app.perSecond / r.sameSize.perSecond, 3),
          fixed(r.app.p99Ms),
          fixed(r.floor.p99Ms),
          ...(r.baseline ? [fixed(r.baseline.perSecond)] : []),
        ]),
      ],
    }),
  );
  guard(
    "No-JavaScript sign-up (multipart post of the server action, new number each)",
    signup,
    ({ check, builds }) => ({
      table: builds && [
        [
          "Build",
          "Sign-ups /s (median)",
          "p99 ms under load",
          "Non-2xx or errors",
          "Server-added p50 ms",
          "p99 ms",
          "Total p50 ms",
        ],
        ...builds.map((b, i) => [
          i ? `Before (${baseline.label})` : "This tree",
          fixed(b.perSecond, 1),
          fixed(b.p99Ms),
          b.non2xx,
          fixed(b.addedP50Ms, 1),
          fixed(b.addedP99Ms, 1),
          fixed(b.totalP50Ms, 1),
        ]),
      ],
      lines: [
        check.ok
          ? "The post was checked first: 200, the success page, one delivery."
          : `The post does not work: ${check.problems.join("; ")}`,
      ],
    }),
  );
  guard(
    "The console's reads (bench/console.ts: web sign-ups, 1 in 20 revoked; 30 runs after 3 warm-ups)",
    consoleReads,
    (engines) => ({
      table: [
        ["Engine", "Read", "p50 ms", "p95 ms"],
        ...engines.flatMap((engine) =>
          engine.timings.map((t) => [engine.engine, t.read, fixed(t.p50, 1), fixed(t.p95, 1)]),
        ),
      ],
      lines: engines.flatMap((engine) => [
        `${engine.engine}: ${engine.signups.toLocaleString("en")} sign-ups written in ${fixed(engine.filledSeconds, 1)} s`,
        ...engine.plans.map(({ statement, plan }) => `${engine.engine} plan, ${statement}: ${plan}`),
      ]),
    }),
  );
  return out;
}

/** Each budget, judged; one that could not be measured fails. */
export function budgets({ weights, audits, simulated, throughput, signup, console: consoleReads }) {
  const list = [];
  // A measurement BENCH_ONLY left out judges none of its budgets.
  const add = (name, result, judge) => {
    if (result === undefined) return;
    list.push(
      failed(result) ? { name, value: `not measured: ${result.message}`, pass: false } : { name, ...judge(result) },
    );
  };
  for (const path of [pages.home, pages.signup]) {
    // The page's audit beside the floor's, from the same interleaved runs.
    const audited = (judge) => (rows) =>
      judge(
        rows.find((a) => a.label === path),
        rows.find((a) => a.label === "floor"),
      );
    add(
      `${path}: performance >= the floor's`,
      audits,
      audited((a, floor) => ({
        value: `${a.scores.performance} vs ${floor.scores.performance}`,
        pass: a.scores.performance >= floor.scores.performance,
      })),
    );
    add(
      `${path}: LCP <= the floor's + 300 ms`,
      audits,
      audited((a, floor) => ({
        value: `${fixed(a.metrics.lcpMs)} vs ${fixed(floor.metrics.lcpMs)} ms (${signed(a.metrics.lcpMs - floor.metrics.lcpMs)})`,
        pass: a.metrics.lcpMs <= floor.metrics.lcpMs + 300,
      })),
    );
    add(
      `${path}: TBT <= the floor's + 50 ms`,
      audits,
      audited((a, floor) => ({
        value: `${fixed(a.metrics.tbtMs)} vs ${fixed(floor.metrics.tbtMs)} ms`,
        pass: a.metrics.tbtMs <= floor.metrics.tbtMs + 50,
      })),
    );
    const simulatedRow = (judge) => (rows) =>
      judge(
        rows.find((a) => a.label === path),
        rows.find((a) => a.label === "floor"),
      );
    add(
      `${path}: simulated performance >= the floor's`,
      simulated,
      simulatedRow((a, floor) => ({
        value: `${a.scores.performance} vs ${floor.scores.performance}`,
        pass: a.scores.performance >= floor.scores.performance,
      })),
    );
    add(
      `${path}: simulated LCP, the median and the slowest run, <= the floor's median + 300 ms`,
      simulated,
      simulatedRow((a, floor) => {
        const slowest = Math.max(...a.lcpRunsMs);
        return {
          value: `median ${fixed(a.metrics.lcpMs)}, slowest ${fixed(slowest)} vs ${fixed(floor.metrics.lcpMs)} ms`,
          pass: a.metrics.lcpMs <= floor.metrics.lcpMs + 300 && slowest <= floor.metrics.lcpMs + 300,
        };
      }),
    );
    const others = categories.slice(1);
    add(
      `${path}: CLS 0, accessibility, best practices and SEO 100`,
      audits,
      audited((a) => ({
        value: `CLS ${fixed(a.metrics.cls, 3)}, ${others.map((id) => `${id} ${a.scores[id]}`).join(", ")}`,
        pass: a.metrics.cls === 0 && others.every((id) => a.scores[id] === 100),
      })),
    );
    add(
      `${path} HTML <= ${htmlBudgets[path].raw / KB} KiB raw and <= ${htmlBudgets[path].gzip / KB} KiB gzipped (zlib's default level)`,
      weights,
      (rows) => {
        const w = rows.find((row) => row.path === path);
        return {
          value: `${kb(w.htmlRaw)} KiB, ${kb(w.htmlGzipDefault)} KiB`,
          pass: w.htmlRaw <= htmlBudgets[path].raw && w.htmlGzipDefault <= htmlBudgets[path].gzip,
        };
      },
    );
    add(`Gzipped JS on ${path} <= ${jsBudgets[path] / KB} KB`, weights, (rows) => {
      const bytes = rows.find((w) => w.path === path).jsGzip;
      return { value: `${kb(bytes)} KB`, pass: bytes <= jsBudgets[path] };
    });
  }
  for (const [encoding, { least, against, floor }] of Object.entries(throughputBudgets))
    add(
      `Serving / and /signup (${encodings[encoding]}), the worse of the two: >= ${least} × the requests per second of ${floor}`,
      throughput,
      (rows) => {
        const shares = rows
          .filter((row) => row.encoding === encoding)
          .map((row) => ({ row, share: row.app.perSecond / row[against].perSecond }));
        return {
          value: shares
            .map(
              ({ row, share }) =>
                `${row.path} ${fixed(row.app.perSecond)} vs ${fixed(row[against].perSecond)}/s (${fixed(share, 3)})`,
            )
            .join(", "),
          pass: shares.length === 2 && shares.every(({ share }) => share >= least),
        };
      },
    );
  for (const engine of failed(consoleReads) ? [] : consoleReads)
    add(
      `Console on ${engine.engine}, ${engine.signups.toLocaleString("en")} sign-ups: the overview, a waitlist page and a search, p95 <= ${consoleBudgetMs} ms`,
      consoleReads,
      () => ({
        value: engine.timings.map((t) => `${t.read} ${fixed(t.p95, 1)}`).join(", ") + " ms",
        pass: engine.signups >= 100_000 && engine.timings.every((t) => t.p95 <= consoleBudgetMs),
      }),
    );
  // A console bench that could not measure fails its budget (add() says why); one BENCH_ONLY left out judges none.
  if (consoleReads instanceof Error)
    add(`Console: the overview, a waitlist page and a search, p95 <= ${consoleBudgetMs} ms`, consoleReads, () => ({}));
  const thisTree = (judge) => (rows) => judge(rows.filter((w) => !w.before));
  add(
    "The stylesheet once in every page, none in the payload; no @font-face, no font requested",
    weights,
    thisTree((rows) => ({
      value: rows.map((w) => `${w.path} ${w.stylesheets}/${w.fontFaces}/${w.fontRequests}`).join(", "),
      pass: rows.every((w) => w.stylesheets === 1 && w.fontFaces === 0 && w.fontRequests === 0),
    })),
  );
  add(
    "No console errors or failed requests",
    weights,
    thisTree((rows) => ({
      value: rows.map((w) => `${w.path} ${w.consoleErrors.length + w.failedRequests.length}`).join(", "),
      pass: rows.every((w) => !w.consoleErrors.length && !w.failedRequests.length),
    })),
  );
  add("No-JavaScript sign-up post works", signup, ({ check }) => ({
    value: check.ok ? "200, success page, delivered" : check.problems.join("; "),
    pass: check.ok,
  }));
  const [now, before] = failed(signup) ? [] : (signup.builds ?? []);
  if (before) {
    add("No-JS sign-up: server-added p50 <= before + 5 ms", signup, () => ({
      value: `${fixed(now.addedP50Ms, 1)} vs ${fixed(before.addedP50Ms, 1)} ms`,
      pass: now.addedP50Ms <= before.addedP50Ms + 5,
    }));
    add("No-JS sign-ups per second >= 90% of before", signup, () => ({
      value: `${fixed(now.perSecond, 1)} vs ${fixed(before.perSecond, 1)} (${fixed((now.perSecond / before.perSecond) * 100)}%)`,
      pass: now.perSecond >= 0.9 * before.perSecond,
    }));
  }
  return list;
}

/** The report: Markdown, which reads as well in a terminal as in RESULTS.md. */
export function render(title, list, budgetList) {
  // Lighthouse quotes the page's HTML, which Markdown would render.
  const cell = (value) =>
    String(value ?? "")
      .replace(/\|/g, "\\|")
      .replace(/<(?=[a-z/!])/gi, "&lt;");
  const table = (rows) => [
    `| ${rows[0].map(cell).join(" | ")} |`,
    `|${rows[0].map(() => " --- ").join("|")}|`,
    ...rows.slice(1).map((row) => `| ${row.map(cell).join(" | ")} |`),
  ];
  const failures = budgetList.filter((b) => !b.pass);
  const all = [
    ...list,
    {
      title: "Budgets",
      table: [["Result", "Budget", "Measured"], ...budgetList.map((b) => [b.pass ? "PASS" : "FAIL", b.name, b.value])],
    },
  ];
  return [
    `# ${title}`,
    ...all.flatMap((s) => [
      "",
      `## ${s.title}`,
      "",
      ...(s.table ? [...table(s.table), ""] : []),
      ...(s.lines ?? []).map((line) => `- ${cell(line)}`),
    ]),
    "",
    failures.length
      ? `SUMMARY: ${failures.length} of ${budgetList.length} budgets FAILED: ${failures.map((b) => b.name).join("; ")}`
      : `SUMMARY: all ${budgetList.length} budgets passed`,
    "",
  ].join("\n");
}
