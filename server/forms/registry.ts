import "server-only";
import type * as z from "zod/mini";
import { contactFields, contactSchema, emptyContactValues } from "@/lib/forms/contact";
import type { SchemaTools } from "@/lib/forms/text";
import { emptyWaitlistValues, waitlistFields, waitlistSchema } from "@/lib/forms/waitlist";
import type { ConsentSpec } from "@/server/consent/evidence";
import type { ServerEnv } from "@/server/env";

type Schema = z.ZodMiniObject;
type Lead<S extends Schema> = z.output<S>;
/** What a post carries for the schema's fields, as typed: a checkbox is a boolean, the rest text. */
type PostedValues<S extends Schema> = { [K in keyof z.input<S>]: z.input<S>[K] extends boolean ? boolean : string };
type NumberSetting = { [K in keyof ServerEnv]-?: ServerEnv[K] extends number ? K : never }[keyof ServerEnv];
type LeadField<S extends Schema> = keyof Lead<S> & string;

/** What the server knows of one form, read top to bottom by submitForm. */
export type FormEntry<S extends Schema> = {
  /** Every field the form posts, empty: a boolean is a checkbox ("on" when checked). */
  emptyValues: PostedValues<S>;
  /** The fields' length caps: an invalid answer echoes no more of a field than this. */
  fields: { [K in keyof PostedValues<S>]: { readonly label: string; readonly maxLength?: number } };
  /** Built with the settings in force (the accepted phone countries); submitForm keeps one per policy. */
  schema: (tools: SchemaTools) => S;
  /** The webhook body's keys, in order; every field of the schema when left out. */
  payload?: readonly LeadField<S>[];
  /**
   * A form whose box asks for consent to be texted: every accepted post keeps
   * a consent record for the number in `phone`, with the lead, or is not sent.
   */
  consent?: ConsentSpec & { phone: LeadField<S> };
  limits: {
    /** The field holding a phone number the workflow will text (canonical E.164): limited per number. */
    phone?: LeadField<S>;
    /** The field holding an email address the operator will write to: limited per address. */
    email?: LeadField<S>;
    /** The settings that cap the whole form, from every client together: a burst per minute and a day's budget. */
    ceiling?: { perMinute: NumberSetting; perDay: NumberSetting };
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
    fields: contactFields,
    schema: contactSchema,
    limits: { email: "email" },
  }),
  waitlist: entry({
    emptyValues: emptyWaitlistValues,
    fields: waitlistFields,
    schema: waitlistSchema,
    // The consent box is checked by the schema and never leaves the server.
    payload: ["phone", "name"],
    consent: { phone: "phone", text: waitlistFields.consent.label, page: "/signup" },
    // Every sign-up makes the workflow text a number: the target of SMS pumping.
    limits: {
      phone: "phone",
      ceiling: { perMinute: "RATE_LIMIT_WAITLIST_PER_MINUTE", perDay: "WAITLIST_DAILY_LIMIT" },
    },
  }),
};

export type FormName = keyof typeof formRegistry;
export type FormValues<Name extends FormName> = PostedValues<ReturnType<(typeof formRegistry)[Name]["schema"]>>;
export const formNames = Object.keys(formRegistry) as FormName[];

/** The forms that keep consent, and the payload key that holds the number each texts. */
export const consentForms = Object.entries(formRegistry).flatMap(([form, entry]: [string, FormEntry<Schema>]) =>
  entry.consent ? [{ form, phoneKey: entry.consent.phone }] : [],
);
