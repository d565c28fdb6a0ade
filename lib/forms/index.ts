import { registryOf } from "./define";
import { contact } from "./contact";
import { waitlist } from "./waitlist";

/** Every form the site has, each from its own definition (lib/forms/<name>/). Nothing in this module loads zod. */
export const { forms, formNames, isFormName, formPages, resultPages, consentForms } = registryOf({ contact, waitlist });

export type FormName = keyof typeof forms;
export type FormValues<Name extends FormName> = (typeof forms)[Name]["emptyValues"];

/** What each form's post carries, by the form's name: what types a form's server action (server/forms/serve-form.ts). */
export type ValuesByForm = { [Name in FormName]: FormValues<Name> };
