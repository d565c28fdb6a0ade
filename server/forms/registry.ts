import "server-only";
import * as z from "zod/mini";
import type { ServerEnv } from "@/server/env";
import { contactSchema, emptyContactValues } from "@/lib/forms/contact";
import { emptyWaitlistValues, waitlistSchema } from "@/lib/forms/waitlist";

type Schema = z.ZodMiniObject;
type Lead<S extends Schema> = z.output<S>;
/** What a post carries for the schema's fields, as typed: a checkbox is a boolean, the rest text. */
type PostedValues<S extends Schema> = { [K in keyof z.input<S>]: z.input<S>[K] extends boolean ? boolean : string };
type NumberSetting = { [K in keyof ServerEnv]: ServerEnv[K] extends number ? K : never }[keyof ServerEnv];

/** What the server knows of one form, read top to bottom by submitForm. */
export type FormEntry<S extends Schema> = {
  /** Every field the form posts, empty: a boolean is a checkbox ("on" when checked). */
  emptyValues: PostedValues<S>;
  schema: S;
  /** The webhook body's keys, in order; every field of the schema when left out. */
  payload?: readonly (keyof Lead<S> & string)[];
  limits: {
    /** The field holding a phone number the workflow will text: limited per number. */
    phone?: keyof Lead<S> & string;
    /** The setting that caps the whole form's posts per minute, from every address together. */
    ceilingPerMinute?: NumberSetting;
  };
};

const entry = <S extends Schema>(form: FormEntry<S>) => form;

/**
 * Every form the site has. A form's name is the same everywhere: its contract
 * in lib/forms, its component, its action, the log lines, and the prefix of
 * its environment variables (contact → CONTACT_WEBHOOK_URL).
 */
export const formRegistry = {
  contact: entry({
    emptyValues: emptyContactValues,
    schema: contactSchema(z),
    limits: {},
  }),
  waitlist: entry({
    emptyValues: emptyWaitlistValues,
    schema: waitlistSchema(z),
    // The consent box is checked by the schema and never leaves the server.
    payload: ["phone", "name"],
    // Every sign-up makes the workflow text a number: the target of SMS pumping.
    limits: { phone: "phone", ceilingPerMinute: "RATE_LIMIT_WAITLIST_PER_MINUTE" },
  }),
};

export type FormName = keyof typeof formRegistry;
export type FormValues<Name extends FormName> = PostedValues<(typeof formRegistry)[Name]["schema"]>;
export const formNames = Object.keys(formRegistry) as FormName[];
