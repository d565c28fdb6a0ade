import { defineForm } from "../define";
import { contactFields, contactMessages, emptyContactValues } from "./words";

export * from "./words";

/** The quote request on the landing page: the browser checks it natively, the server with its schema. */
export const contact = defineForm({
  name: "contact",
  permalink: "/#contact",
  event: "Contact Request",
  fields: contactFields,
  emptyValues: emptyContactValues,
  messages: contactMessages,
  schema: async () => (await import("./schema")).contactSchema(),
  limits: { email: "email" },
});
