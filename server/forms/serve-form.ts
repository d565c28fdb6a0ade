import "server-only";
import type { FormName, FormValues } from "@/lib/forms";
import { consentTextOf, type FormDefinition } from "@/lib/forms/define";
import type { ServedForm } from "@/lib/forms/form-state";
import { disclosureOf } from "@/server/consent/disclosure";
import { waitlistPhonePolicy } from "@/server/site-settings";
import { sendForm } from "./send-form";

// The action is bound to the form's name here, on the server: one bound in the browser would hang a post made
// without JavaScript (vercel/next.js#98045).
export function serveForm<Name extends FormName>(definition: FormDefinition<Name>): ServedForm<FormValues<Name>> {
  // Instantiated for this form first: bind() would type the action for any name.
  const send = sendForm<Name>;
  const action = send.bind(null, definition.name) as ServedForm<FormValues<Name>>["action"];
  if (!definition.consent) return { action };
  const disclosureVersion = disclosureOf(consentTextOf(definition)).version;
  return { action, consent: { phonePolicy: waitlistPhonePolicy(), disclosureVersion } };
}
