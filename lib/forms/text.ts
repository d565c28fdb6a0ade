import type * as ZodMini from "zod/mini";

/**
 * zod/mini, handed in by whoever builds a form's schema: the server's registry,
 * or the module the browser loads on first focus. A form's contract module is
 * imported by its page for the words, so it imports zod only as a type; a
 * runtime import would put zod in the page's first load (+15 KB gzipped on
 * /signup, measured).
 */
export type Zod = typeof ZodMini;

/** The length message of a field whose form has no word of its own for it. */
export const tooLong = (max: number) => `Please use at most ${max.toLocaleString("en-US")} characters.`;

/**
 * A text field as the server reads it: trimmed first, so the limits count what
 * is kept, and capped at the field's length. Add the field's own rules with
 * `.check(...)`.
 */
export function trimmedText(z: Zod, maxLength: number, tooLongMessage = tooLong(maxLength)) {
  return z.string().check(z.trim(), z.maxLength(maxLength, { error: tooLongMessage }));
}
