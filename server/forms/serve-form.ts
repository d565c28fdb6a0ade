import "server-only";
import type { FormName, FormValues } from "@/lib/forms";
import { consentTextOf, type FormDefinition } from "@/lib/forms/define";
import type { ServedForm } from "@/lib/forms/form-state";
import { disclosureOf } from "@/server/consent/disclosure";
import { waitlistPhonePolicy } from "@/server/site-settings";
import { sendForm } from "./send-form";

/**
 * What a page gives a form's component: the one server action every form
 * posts to, bound to this form's name here, on the server (a binding made in
 * the browser's component would hang a post made without JavaScript:
 * vercel/next.js#98045), and for a form that asks consent to text, what its
 * consent fields carry. Read when the page renders: a restart with other
 * settings changes them.
 */
export function serveForm<Name extends FormName>(definition: FormDefinition<Name>): ServedForm<FormValues<Name>> {
  // Instantiated for this form first: bind() would type the action for any name.
  const send = sendForm<Name>;
  const action = send.bind(null, definition.name) as ServedForm<FormValues<Name>>["action"];
  if (!definition.consent) return { action };
  const disclosureVersion = disclosureOf(consentTextOf(definition)).version;
  return { action, consent: { phonePolicy: waitlistPhonePolicy(), disclosureVersion } };
}
