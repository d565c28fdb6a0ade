"use server";

import { submitForm } from "@/server/forms/submit-form";

/** The waitlist form's action: re-validates the sign-up and forwards it to the waitlist webhook. */
export async function joinWaitlist(_previous: unknown, formData: FormData) {
  return submitForm("waitlist", formData);
}
