import { z } from "zod";
import { clientCountValues, contactFields, contactMessages } from "./contact-content";

const m = contactMessages.invalid;

const text = (maxLength: number) => z.string().trim().max(maxLength, { error: m.tooLong(maxLength) });

/**
 * The server's check of a contact request. The browser runs the same rules
 * natively (required, type="email", maxlength), without custom messages; these
 * messages reach only a visitor whose browser skipped them.
 */
export const contactSchema = z.object({
  name: text(contactFields.name.maxLength).min(1, { error: m.name }),
  // The browser's own rule for type="email", so both sides accept the same addresses.
  email: text(contactFields.email.maxLength).pipe(z.email({ pattern: z.regexes.html5Email, error: m.email })),
  phone: text(contactFields.phone.maxLength),
  clientCount: z.enum(clientCountValues, { error: m.clientCount }),
  currentTools: text(contactFields.currentTools.maxLength),
  message: text(contactFields.message.maxLength),
});

export type ContactLead = z.infer<typeof contactSchema>;
