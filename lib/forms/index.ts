import { pageOf, type FormDefinition } from "./define";
import { contact } from "./contact";
import { waitlist } from "./waitlist";

/**
 * Every form the site has, each from its own definition: a new form is its
 * folder here, its component, its page or section, and its variables in
 * .env.example. Nothing in this module loads zod.
 */
export const forms = { contact, waitlist } satisfies { [Name in string]: FormDefinition<Name> };

export type FormName = keyof typeof forms;
export type Form = (typeof forms)[FormName];
export type FormValues<Name extends FormName> = (typeof forms)[Name]["emptyValues"];

export const formNames = Object.keys(forms) as FormName[];

export const isFormName = (name: string): name is FormName => Object.hasOwn(forms, name);

/** The pages that hold a form. */
export const formPages = [...new Set(Object.values(forms).map(pageOf))];

/** The forms that keep consent, and the payload key that holds the number each texts. */
export const consentForms = Object.values(forms).flatMap((form: FormDefinition) =>
  form.consent ? [{ form: form.name, phoneKey: form.consent.phone }] : [],
);
