// @ts-check
// Plain JavaScript: scripts/start.mjs loads it without the app's compiler; the logger and commands use the same.

/** C0 and C1 codes a terminal may act on, bidi overrides that reorder what is read, zero-width marks. */
export const controlCharacters = /[\p{Cc}\p{Cf}]/gu;

/** @param {string} char */
const hex = (char) => /** @type {number} */ (char.codePointAt(0)).toString(16).padStart(4, "0");

/**
 * Each control or format character as a visible escape (\u{202e}), but those in `kept`: what a visitor sent, shown without spoofing.
 * @param {string} text @param {string} [kept]
 */
export const escapeControls = (text, kept = "") =>
  text.replace(controlCharacters, (char) => (kept.includes(char) ? char : `\\u{${hex(char)}}`));

// JSON leaves the line and paragraph separators raw, and a reader of lines takes them for line ends.
const jsonEscaped = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
/**
 * Each UTF-16 unit its own \uXXXX.
 * @param {string} char
 */
const jsonEscape = (char) =>
  Array.from({ length: char.length }, (_, at) => `\\u${char.charCodeAt(at).toString(16).padStart(4, "0")}`).join("");

/**
 * The same in JSON's own escape, which a JSON reader turns back into the very character: lossless.
 * @param {string} json
 */
export const escapeControlsInJson = (json) =>
  json.replace(jsonEscaped, (char) => (char === "\n" ? char : jsonEscape(char)));

/** @param {"info" | "warn" | "error"} level @param {Record<string, unknown>} fields */
export const logLine = (level, fields) =>
  escapeControlsInJson(JSON.stringify({ time: new Date().toISOString(), level, ...fields }));
