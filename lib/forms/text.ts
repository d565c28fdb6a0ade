import * as z from "zod/mini";

/** The length message of a field whose form has no word of its own for it. */
const tooLong = (max: number) => `Please use at most ${max.toLocaleString("en-US")} characters.`;

// Invisible characters writing needs, kept where they work: the joiner inside an emoji sequence (👨‍🍳), the joiner and
// non-joiner after a letter of a script that shapes with them (Persian's می‌خواهم), and a subdivision flag's tags.
// Without the v flag: Safari 16.4, which the forms still serve, has no set subtraction.
const needed = () =>
  [
    String.raw`(?<=[\p{Extended_Pictographic}\p{Emoji_Modifier}\u{FE0F}])\u{200D}(?=\p{Extended_Pictographic})`,
    String.raw`(?<=[\p{L}\p{M}])(?<![\p{sc=Latn}\p{sc=Grek}\p{sc=Cyrl}\p{sc=Zinh}\p{sc=Zyyy}])[\u{200C}\u{200D}]`,
    String.raw`\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,6}\u{E007F}`,
  ].join("|");
/** `text` with what `drop` matches taken out, but for what writing needs (above). */
const cleaned = (text: string, drop: RegExp) =>
  text.replace(new RegExp(`(${needed()})|${drop.source}`, "gu"), (_, kept?: string) => kept ?? "");

/** A one-line value as the server keeps it: no control or format characters (but the above), no line breaks. */
export const oneLine = (text: string) => cleaned(text, /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);

/**
 * A multi-line value as the server keeps it: line breaks (as \n; CRLF and CR become LF first) and no other control
 * or format characters (but the above).
 */
export const multiline = (text: string) => cleaned(text.replace(/\r\n?/g, "\n"), /[^\P{Cc}\n]|[\p{Cf}\p{Zl}\p{Zp}]/u);

/**
 * A text field as the server reads it: cleaned and trimmed first, so the
 * limits count what is kept, and capped at the field's length. Add the field's
 * own rules with `.check(...)`.
 */
export function trimmedText(maxLength: number, tooLongMessage = tooLong(maxLength), clean = oneLine) {
  return z.string().check(z.overwrite(clean), z.trim(), z.maxLength(maxLength, { error: tooLongMessage }));
}
