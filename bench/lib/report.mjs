import { categories } from "./lighthouse.mjs";
import { consoleBudgetMs, pages, servingShare } from "./config.mjs";
import { encodings } from "./load.mjs";

const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
const signed = (value) => `${value >= 0 ? "+" : ""}${fixed(value)}`;
const failed = (result) => result === undefined || result instanceof Error;

/** The measurements as sections (a title, a table, lines). */
export function sections({ machine, audits, simulated, throughput, console: consoleReads }) {
  const out = [{ title: "Machine", lines: Object.entries(machine).map(([key, value]) => `${key}: ${value}`) }];
  const guard = (title, result, make) =>
    out.push(
      failed(result)
        ? { title, lines: [result ? `could not measure: ${result.message}` : "not run (BENCH_ONLY)"] }
        : { title, ...make(result) },
    );
  const auditSection = (title, result) =>
    guard(title, result, (rows) => {
      const floor = rows.find((a) => a.label === "floor");
      return {
        table: [
          ["Page", "Runs", ...categories, "LCP ms [runs]", "TBT ms", "CLS", "LCP − floor ms"],
          ...rows.map((a) => [
            a.label,
            a.runs,
            ...categories.map((id) => `${a.scores[id]} [${a.allScores[id].join(" ")}]`),
            `${fixed(a.metrics.lcpMs)} [${a.lcpRunsMs.map((ms) => fixed(ms)).join(" ")}]`,
            fixed(a.metrics.tbtMs),
            fixed(a.metrics.cls, 3),
            signed(a.metrics.lcpMs - floor.metrics.lcpMs),
          ]),
        ],
        lines: rows.flatMap((a) =>
          a.failing.map((f) => `${a.label}: ${f.category} lost points on ${f.id} (${f.title}) in ${f.runs} runs`),
        ),
      };
    });
  auditSection("Lighthouse, mobile, applied throttling (medians, interleaved with the floor)", audits);
  auditSection("Lighthouse, mobile, simulated throttling as PageSpeed Insights runs it", simulated);
  guard("Serving (GET, 20 connections, 2xx per second, median of interleaved rounds)", throughput, (rows) => ({
    table: [
      ["Page", "Accept-Encoding", "npm start /s", "next start /s", "Share", "npm start p99 ms"],
      ...rows.map((r) => [
        r.path,
        encodings[r.encoding],
        fixed(r.app.perSecond),
        fixed(r.nextStart.perSecond),
        fixed(r.app.perSecond / r.nextStart.perSecond, 3),
        fixed(r.app.p99Ms),
      ]),
    ],
  }));
  guard("The console's reads (bench/console.ts; 30 runs after 3 warm-ups)", consoleReads, (engines) => ({
    table: [
      ["Engine", "Read", "p50 ms", "p95 ms"],
      ...engines.flatMap((e) => e.timings.map((t) => [e.engine, t.read, fixed(t.p50, 1), fixed(t.p95, 1)])),
    ],
    lines: engines.map((e) => `${e.engine}: ${e.signups} sign-ups written in ${fixed(e.filledSeconds, 1)} s`),
  }));
  return out;
}

/** Each budget, judged; one that could not be measured fails, one BENCH_ONLY left out is not judged. */
export function budgets({ audits, simulated, throughput, console: consoleReads }) {
  const list = [];
  const add = (name, result, judge) => {
    if (result === undefined) return;
    list.push(
      failed(result) ? { name, value: `not measured: ${result.message}`, pass: false } : { name, ...judge(result) },
    );
  };
  for (const path of pages) {
    const beside = (judge) => (rows) =>
      judge(
        rows.find((a) => a.label === path),
        rows.find((a) => a.label === "floor"),
      );
    add(
      `${path}: performance ≥ the floor's`,
      audits,
      beside((a, floor) => ({
        value: `${a.scores.performance} vs ${floor.scores.performance}`,
        pass: a.scores.performance >= floor.scores.performance,
      })),
    );
    add(
      `${path}: LCP ≤ the floor's + 300 ms`,
      audits,
      beside((a, floor) => ({
        value: `${fixed(a.metrics.lcpMs)} vs ${fixed(floor.metrics.lcpMs)} ms`,
        pass: a.metrics.lcpMs <= floor.metrics.lcpMs + 300,
      })),
    );
    add(
      `${path}: TBT ≤ the floor's + 50 ms`,
      audits,
      beside((a, floor) => ({
        value: `${fixed(a.metrics.tbtMs)} vs ${fixed(floor.metrics.tbtMs)} ms`,
        pass: a.metrics.tbtMs <= floor.metrics.tbtMs + 50,
      })),
    );
    const others = categories.slice(1);
    add(
      `${path}: CLS 0; accessibility, best practices and SEO 100`,
      audits,
      beside((a) => ({
        value: `CLS ${fixed(a.metrics.cls, 3)}, ${others.map((id) => `${id} ${a.scores[id]}`).join(", ")}`,
        pass: a.metrics.cls === 0 && others.every((id) => a.scores[id] === 100),
      })),
    );
    add(
      `${path}: simulated performance ≥ the floor's; median and slowest LCP ≤ the floor's + 300 ms`,
      simulated,
      beside((a, floor) => {
        const slowest = Math.max(...a.lcpRunsMs);
        return {
          value: `${a.scores.performance} vs ${floor.scores.performance}; ${fixed(a.metrics.lcpMs)}, slowest ${fixed(slowest)} vs ${fixed(floor.metrics.lcpMs)} ms`,
          pass:
            a.scores.performance >= floor.scores.performance &&
            Math.max(a.metrics.lcpMs, slowest) <= floor.metrics.lcpMs + 300,
        };
      }),
    );
  }
  for (const encoding of Object.keys(encodings))
    add(
      `Serving ${pages.join(" and ")} (${encodings[encoding]}): ≥ ${servingShare} × next start's pace`,
      throughput,
      (rows) => {
        const shares = rows.filter((r) => r.encoding === encoding).map((r) => r.app.perSecond / r.nextStart.perSecond);
        return {
          value: shares.map((share) => fixed(share, 3)).join(", "),
          pass: shares.length === 2 && shares.every((s) => s >= servingShare),
        };
      },
    );
  add(
    `The console at 100,000 sign-ups, every read's p95 ≤ ${consoleBudgetMs} ms, on each engine`,
    consoleReads,
    (engines) => ({
      value: engines.map((e) => `${e.engine} ${fixed(Math.max(...e.timings.map((t) => t.p95)), 1)} ms`).join(", "),
      pass: engines.every((e) => e.signups >= 100_000 && e.timings.every((t) => t.p95 <= consoleBudgetMs)),
    }),
  );
  return list;
}

/** The report in Markdown, which reads as well in a terminal. */
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
