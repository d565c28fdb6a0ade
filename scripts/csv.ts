/** One RFC 4180 field: quoted when it holds a comma, a quote or a line break; quotes doubled. */
export function csvField(value: unknown) {
  const text = value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV document: a header row, then one row per record, CRLF line ends. */
export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]) {
  return [columns, ...rows.map((row) => columns.map((column) => row[column]))].map((row) => row.map(csvField).join(",")).join("\r\n") + "\r\n";
}
