import "server-only";
import { emptySignupValues } from "@/components/signup/signup-content";
import { signupSchema, type Signup, type SignupInput } from "@/components/signup/signup-schema";
import { field, type FormDefinition } from "./submit-form";

export const waitlistForm: FormDefinition<SignupInput, Signup, { phone: string; name: string }> = {
  form: "waitlist",
  readValues: (formData) => ({
    name: field(formData, "name"),
    phone: field(formData, "phone"),
    // A checked box posts "on"; an unchecked one posts nothing.
    consent: field(formData, "consent") === "on",
  }),
  emptyValues: emptySignupValues,
  schema: signupSchema,
  // Consent is checked above and never leaves the server.
  toPayload: (signup) => ({ phone: signup.phone, name: signup.name }),
  phoneOf: (signup) => signup.phone,
};
