"use server";

import { redirect } from "next/navigation";
import { isFormName, forms } from "@/lib/forms";
import { resultPathOf } from "@/lib/forms/define";
import { isKept, scriptPostField } from "@/lib/forms/form-state";
import { submitForm } from "@/server/forms/submit-form";

/**
 * Every form's server action, bound to its form's name. A post the browser made alone whose sign-up was kept ends in
 * a 303 to the result page (post/redirect/get); every other outcome renders inline, with the values typed.
 */
export async function sendForm<Name extends string>(form: Name, _previous: unknown, formData: FormData) {
  const state = await submitForm(form, formData);
  if (isKept(state.status) && !formData.has(scriptPostField) && isFormName(form)) redirect(resultPathOf(forms[form]));
  return state;
}
