/** A number in E.164 (+15551234567): the one value starting with "+" that a spreadsheet reads as text-like data, not a formula. */
const e164 = /^\+[1-9]\d{7,14}$/;

// A spreadsheet runs a cell starting with =, +, -, @, a tab or a carriage return as a formula (OWASP "CSV Injection"):
// such a value gets a leading ', shown as text. Decided by the value: an exact E.164 number keeps its +.
export function spreadsheetSafe(text: string) {
  return /^[=+\-@\t\r]/.test(text) && !e164.test(text) ? `'${text}` : text;
}

/** One RFC 4180 field, spreadsheet-safe: quoted when it holds a comma, a quote or a line break; quotes doubled. */
export function csvField(value: unknown) {
  const raw = value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
  const text = spreadsheetSafe(raw);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV document: a header row, then one row per record, CRLF line ends. The only CSV writer of the project. */
export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]) {
  return (
    [columns, ...rows.map((row) => columns.map((column) => row[column]))]
      .map((row) => row.map(csvField).join(","))
      .join("\r\n") + "\r\n"
  );
}
