"use server";

import { headers } from "next/headers";
import type { ContactValues } from "@/components/contact/contact-content";
import type { FormState } from "@/components/forms/form-state";
import { contactForm } from "@/server/forms/contact-form";
import { submitForm } from "@/server/forms/submit-form";

/** The contact form's action: re-validates the request and forwards it to the contact webhook. */
export async function submitContact(_previous: FormState<ContactValues>, formData: FormData) {
  return submitForm(contactForm, formData, await headers());
}
