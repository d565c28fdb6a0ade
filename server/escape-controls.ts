/**
 * Unicode's control and format characters (Cc and Cf): C0 and C1 codes a
 * terminal may act on, bidi overrides that reorder what is read, zero-width
 * marks.
 */
export const controlCharacters = /[\p{Cc}\p{Cf}]/gu;

const hex = (char: string) => char.codePointAt(0)!.toString(16).padStart(4, "0");

/**
 * Text with each control or format character written as a visible escape,
 * \u{202e}, except those in `kept` (a line end the writer put there itself):
 * what a visitor or a browser sent, shown without spoofing what is read.
 */
export const escapeControls = (text: string, kept = "") =>
  text.replace(controlCharacters, (char) => (kept.includes(char) ? char : `\\u{${hex(char)}}`));

/** The same in JSON's own escape (\u202e), which a JSON reader turns back into the character; JSON's \n stays. */
export const escapeControlsInJson = (json: string) =>
  json.replace(controlCharacters, (char) => (char === "\n" ? char : `\\u${hex(char)}`));
