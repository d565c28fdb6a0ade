"use server";

import { submitForm } from "@/server/forms/submit-form";

/** The contact form's action: re-validates the request and forwards it to the contact webhook. */
export async function submitContact(_previous: unknown, formData: FormData) {
  return submitForm("contact", formData);
}
