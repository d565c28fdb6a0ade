import * as z from "zod/mini";

/** The length message of a field whose form has no word of its own for it. */
const tooLong = (max: number) => `Please use at most ${max.toLocaleString("en-US")} characters.`;

// Control and format characters (zero-width, bidi, BOM) and every line break.
const notOneLine = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
// Control characters but the line feed, and format characters (bidi marks and overrides, zero-width ones,
// Arabic's letter mark): CRLF and CR become LF first.
const notMultiline = /[^\P{Cc}\n]|[\p{Cf}\p{Zl}\p{Zp}]/gu;

/** A one-line value as the server keeps it: no control or format characters, no line breaks. */
const oneLine = (text: string) => text.replace(notOneLine, "");
/** A multi-line value as the server keeps it: line breaks (as \n) and no other control or format characters. */
export const multiline = (text: string) => text.replace(/\r\n?/g, "\n").replace(notMultiline, "");

/**
 * A text field as the server reads it: cleaned and trimmed first, so the
 * limits count what is kept, and capped at the field's length. Add the field's
 * own rules with `.check(...)`.
 */
export function trimmedText(maxLength: number, tooLongMessage = tooLong(maxLength), clean = oneLine) {
  return z.string().check(z.overwrite(clean), z.trim(), z.maxLength(maxLength, { error: tooLongMessage }));
}
