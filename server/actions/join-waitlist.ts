"use server";

import { headers } from "next/headers";
import type { FormState } from "@/components/forms/form-state";
import type { SignupInput } from "@/components/signup/signup-schema";
import { submitForm } from "@/server/forms/submit-form";
import { waitlistForm } from "@/server/forms/waitlist-form";

/** The sign-up form's action: re-validates the sign-up and forwards it to the waitlist webhook. */
export async function joinWaitlist(_previous: FormState<SignupInput>, formData: FormData) {
  return submitForm(waitlistForm, formData, await headers());
}
