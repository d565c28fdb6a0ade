/**
 * The results as a list of sections, rendered twice: aligned plain text for
 * the terminal and Markdown for bench/RESULTS.md.
 *
 * @typedef {{ head: string[], rows: string[][], numeric?: boolean[] }} Table
 * @typedef {{ text: string, level?: number }} Line
 * @typedef {{ title: string, table?: Table, lines?: Line[], note?: string }} Section
 */

/** @param {Section[]} sections */
export function renderText(title, sections) {
  const out = [title, "=".repeat(title.length), ""];
  for (const section of sections) {
    out.push(section.title, "-".repeat(section.title.length));
    if (section.note) out.push(section.note);
    if (section.table) out.push(...textTable(section.table));
    for (const line of section.lines ?? []) out.push(`${"  ".repeat(line.level ?? 0)}${line.text}`);
    out.push("");
  }
  return out.join("\n");
}

/** @param {Section[]} sections */
export function renderMarkdown(title, sections) {
  const out = [`# ${title}`, ""];
  for (const section of sections) {
    out.push(`## ${section.title}`, "");
    if (section.note) out.push(section.note, "");
    if (section.table) out.push(...markdownTable(section.table), "");
    const lines = section.lines ?? [];
    for (const line of lines) out.push(`${"  ".repeat(line.level ?? 0)}- ${escapeHtml(line.text)}`);
    if (lines.length) out.push("");
  }
  return out.join("\n");
}

function textTable({ head, rows, numeric = [] }) {
  const widths = head.map((cell, i) => Math.max(cell.length, ...rows.map((row) => String(row[i] ?? "").length)));
  const format = (row) =>
    row
      .map((cell, i) => (numeric[i] ? String(cell).padStart(widths[i]) : String(cell).padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [format(head), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(format)];
}

function markdownTable({ head, rows, numeric = [] }) {
  const format = (row) => `| ${row.map((cell) => escapeHtml(String(cell)).replace(/\|/g, "\\|")).join(" | ")} |`;
  return [format(head), `|${head.map((_, i) => (numeric[i] ? " ---: " : " --- ")).join("|")}|`, ...rows.map(format)];
}

/** Lighthouse quotes the page's HTML, which Markdown would otherwise render. */
function escapeHtml(text) {
  return text.replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
