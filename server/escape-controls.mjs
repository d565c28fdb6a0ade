// @ts-check
/**
 * What makes text safe to print and to log: plain JavaScript, as `npm start`'s
 * own server (scripts/start.mjs) loads it without the app's compiler, and the
 * app's logger (server/log.ts) and commands use the same.
 */

/**
 * Unicode's control and format characters (Cc and Cf): C0 and C1 codes a
 * terminal may act on, bidi overrides that reorder what is read, zero-width
 * marks.
 */
export const controlCharacters = /[\p{Cc}\p{Cf}]/gu;

/** @param {string} char */
const hex = (char) => /** @type {number} */ (char.codePointAt(0)).toString(16).padStart(4, "0");

/**
 * Text with each control or format character written as a visible escape,
 * \u{202e}, except those in `kept` (a line end the writer put there itself):
 * what a visitor or a browser sent, shown without spoofing what is read.
 * @param {string} text @param {string} [kept]
 */
export const escapeControls = (text, kept = "") =>
  text.replace(controlCharacters, (char) => (kept.includes(char) ? char : `\\u{${hex(char)}}`));

// What a JSON line escapes beyond JSON's own: control and format characters, and the line and paragraph separators,
// which JSON leaves raw and a reader of lines (or JavaScript before ES2019) takes for line ends.
const jsonEscaped = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
/**
 * A character in JSON's escape: each UTF-16 unit its own \uXXXX, so a character past U+FFFF is its surrogate pair.
 * @param {string} char
 */
const jsonEscape = (char) =>
  Array.from({ length: char.length }, (_, at) => `\\u${char.charCodeAt(at).toString(16).padStart(4, "0")}`).join("");

/**
 * The same in JSON's own escape (\u202e; a tag character as its two halves, \udb40\udc67), which a JSON reader turns
 * back into the very character: lossless. JSON's \n between lines stays.
 * @param {string} json
 */
export const escapeControlsInJson = (json) =>
  json.replace(jsonEscaped, (char) => (char === "\n" ? char : jsonEscape(char)));

/**
 * One log line: `{"time","level",…fields}` as JSON, escaped as above, for the operator's log drain.
 * @param {"info" | "warn" | "error"} level @param {Record<string, unknown>} fields
 */
export const logLine = (level, fields) =>
  escapeControlsInJson(JSON.stringify({ time: new Date().toISOString(), level, ...fields }));
