import "server-only";
import { contactSchema, type ContactLead } from "@/components/contact/contact-schema";
import { emptyContactValues, type ContactValues } from "@/components/contact/contact-content";
import { field, type FormDefinition } from "./submit-form";

export const contactForm: FormDefinition<ContactValues, ContactLead, ContactLead> = {
  form: "contact",
  readValues: (formData) => ({
    name: field(formData, "name"),
    email: field(formData, "email"),
    phone: field(formData, "phone"),
    clientCount: field(formData, "clientCount"),
    currentTools: field(formData, "currentTools"),
    message: field(formData, "message"),
  }),
  emptyValues: emptyContactValues,
  schema: contactSchema,
  toPayload: (lead) => ({
    name: lead.name,
    email: lead.email,
    phone: lead.phone,
    clientCount: lead.clientCount,
    currentTools: lead.currentTools,
    message: lead.message,
  }),
};
