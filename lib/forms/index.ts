import { registryOf } from "./define";
import { contact } from "./contact";
import { waitlist } from "./waitlist";

/**
 * Every form the site has, each from its own definition (lib/forms/<name>/):
 * the server's pipeline, the redelivery pass, the known paths, health and the
 * consent commands all read them from here. Nothing in this module loads zod.
 */
export const { forms, formNames, isFormName, formPages, consentForms } = registryOf({ contact, waitlist });

export type FormName = keyof typeof forms;
export type FormValues<Name extends FormName> = (typeof forms)[Name]["emptyValues"];
