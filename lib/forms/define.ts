import type * as z from "zod/mini";
import type { PhonePolicy } from "./phone";

/** A field's words: the spec's label, our length cap (the browser's maxlength and the server's limit) and a placeholder. */
export type FieldWords = { readonly label: string; readonly maxLength?: number; readonly placeholder?: string };

export type Message = { readonly title: string; readonly text: string };

/** A form's own words: its button, its outcomes and its fields' messages. */
export type FormWords = {
  readonly submit: string;
  readonly busy: string;
  readonly success: Message;
  readonly failure: Message;
  readonly invalid: Readonly<Record<string, string>>;
};

/** What a post carries, as typed: a checkbox is a boolean ("on" when checked), the rest text. */
export type PostedValues = Record<string, string | boolean>;

/** A number the server reads from its env by this name, and its value when unset. */
export type CountSetting = { readonly variable: string; readonly fallback: number };

/**
 * One form, whole: what it asks, in which words, by which rules, what its webhook receives and how it is limited. The
 * rules (zod) load only when `schema` is called, so a page that shows the form's words loads none.
 */
export type FormDefinition<
  Name extends string = string,
  Values extends PostedValues = PostedValues,
  Lead extends Record<string, unknown> = Record<string, unknown>,
> = {
  /** The same everywhere: log lines, the leads table, and the prefix of its env variables (waitlist → WAITLIST_WEBHOOK_URL). */
  readonly name: Name;
  /** The page and anchor the form lives at: where a post made without JavaScript comes back to. */
  readonly permalink: string;
  /** The Web Analytics event counted on success, with none of the visitor's data. */
  readonly event: string;
  readonly fields: { readonly [K in keyof Values]: FieldWords };
  /** Every field the form posts, empty. */
  readonly emptyValues: Values;
  readonly messages: FormWords;
  /** The rules, for the accepted phone countries: run by the browser before a post and by the server after it. */
  readonly schema: (policy: PhonePolicy) => Promise<z.ZodMiniType<Lead, Values>>;
  /** The webhook body's keys, in order; every posted field when left out. */
  readonly payload?: readonly (keyof Lead & string)[];
  /**
   * A form whose `checkbox` asks for consent to be texted (its label is the consent text): every accepted post keeps a
   * consent record for the number in `phone`, with the lead, or is not sent.
   */
  readonly consent?: { readonly phone: keyof Lead & string; readonly checkbox: keyof Values & string };
  readonly limits: {
    /** The field holding a number the workflow will text (E.164): limited per number. */
    readonly phone?: keyof Lead & string;
    /** The field holding an address the operator will write to: limited per address. */
    readonly email?: keyof Lead & string;
    /** What the whole form's receiver is sent, every client together, per minute and per day: past it a lead waits. */
    readonly ceiling?: { readonly perMinute: CountSetting; readonly perDay: CountSetting };
  };
};

/** Checks a form's definition against its own fields and rules, and gives it back as it is. */
export function defineForm<
  const Name extends string,
  Values extends PostedValues,
  Lead extends Record<string, unknown>,
>(definition: FormDefinition<Name, Values, Lead>) {
  return definition;
}

/**
 * The words a form's consent checkbox shows: what the page renders, what its disclosure version is the hash of, and
 * what the consent record keeps.
 */
export function consentTextOf(definition: Pick<FormDefinition, "name" | "fields" | "consent">) {
  const label = definition.consent && definition.fields[definition.consent.checkbox]?.label;
  if (!label) throw new Error(`The form "${definition.name}" asks for no consent`);
  return label;
}

/** The path of a form's page, without its anchor. */
export const pageOf = (definition: Pick<FormDefinition, "permalink">) => definition.permalink.split("#")[0] || "/";

/** Where a post made without JavaScript goes once its sign-up is kept (post/redirect/get): the form's result page. */
export function resultPathOf(definition: Pick<FormDefinition, "name">) {
  return `/sent/${definition.name}`;
}

/**
 * What the rest of the site reads of a set of forms: their names, the pages that hold them, and those that keep
 * consent. A form is filed under its own name, or the site does not start.
 */
export function registryOf<const Forms extends Record<string, FormDefinition>>(forms: Forms) {
  const all: FormDefinition[] = Object.entries(forms).map(([key, definition]) => {
    if (definition.name !== key) throw new Error(`The form "${definition.name}" is filed as "${key}"`);
    return definition;
  });
  type Name = keyof Forms & string;
  return {
    forms,
    formNames: all.map((definition) => definition.name as Name),
    isFormName: (name: string): name is Name => Object.hasOwn(forms, name),
    /** The pages that hold a form. */
    formPages: [...new Set(all.map(pageOf))],
    /** The result pages a post without JavaScript is sent on to. */
    resultPages: all.map((definition) => resultPathOf(definition)),
    /** The forms that keep consent, and the payload key that holds the number each texts. */
    consentForms: all.flatMap((definition) =>
      definition.consent ? [{ form: definition.name, phoneKey: definition.consent.phone }] : [],
    ),
  };
}
