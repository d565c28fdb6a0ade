"use server";

import { submitForm } from "@/server/submission/submit-form";

/**
 * Every form's server action, bound to its form's name by the form's component
 * (see useServerForm): re-validates the post and forwards it to that form's
 * webhook. The name travels with the post, so submitForm refuses one the site
 * has no form for.
 */
export async function sendForm<Name extends string>(form: Name, _previous: unknown, formData: FormData) {
  return submitForm(form, formData);
}
