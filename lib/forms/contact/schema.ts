import * as z from "zod/mini";
import { multiline, trimmedText } from "../text";
import { clientCountOptions, contactFields as f, contactMessages } from "./words";

const m = contactMessages.invalid;
const clientCounts = clientCountOptions.map((option) => option.value);

/**
 * The server's check of a contact request. The browser runs the same rules natively (required, type="email", maxlength)
 * without custom messages; these messages reach only a visitor whose browser skipped them. The optional phone stays as
 * typed.
 */
export function contactSchema() {
  return z.object({
    name: trimmedText(f.name.maxLength).check(z.minLength(1, { error: m.name })),
    // The browser's own rule for type="email", so both sides accept the same addresses.
    email: trimmedText(f.email.maxLength).check(z.regex(z.regexes.html5Email, { error: m.email })),
    phone: trimmedText(f.phone.maxLength),
    clientCount: z.enum(clientCounts as [(typeof clientCounts)[number], ...typeof clientCounts], {
      error: m.clientCount,
    }),
    currentTools: trimmedText(f.currentTools.maxLength),
    message: trimmedText(f.message.maxLength, undefined, multiline),
  });
}
