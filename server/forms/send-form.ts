"use server";

import { redirect } from "next/navigation";
import { isFormName, forms } from "@/lib/forms";
import { resultPathOf } from "@/lib/forms/define";
import { isKept, scriptPostField } from "@/lib/forms/form-state";
import { submitForm } from "@/server/forms/submit-form";

/**
 * Every form's server action, bound to its form's name by the form's component
 * (see useServerForm): re-validates the post and forwards it to that form's
 * webhook. The name travels with the post, so submitForm refuses one the site
 * has no form for.
 *
 * A post the browser made alone (no script marked it) whose sign-up was kept
 * ends in a 303 to the form's result page: post/redirect/get, so reloading
 * what the visitor sees posts nothing. Every other outcome renders inline,
 * with the values the visitor typed.
 */
export async function sendForm<Name extends string>(form: Name, _previous: unknown, formData: FormData) {
  const state = await submitForm(form, formData);
  if (isKept(state.status) && !formData.has(scriptPostField) && isFormName(form)) redirect(resultPathOf(forms[form]));
  return state;
}
