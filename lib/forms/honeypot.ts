/** The field name a person never fills and a form-filling bot usually does. */
export const honeypotName = "website";
