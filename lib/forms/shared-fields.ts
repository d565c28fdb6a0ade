/**
 * Fields more than one form asks for, defined once: the spec's labels, our
 * length caps (the browser's maxlength and the server's limit) and placeholders.
 */
export const sharedFields = {
  name: { label: "Full Name", maxLength: 100, placeholder: "Julia Child" },
  phone: { label: "Phone Number", maxLength: 30, placeholder: "(555) 123-4567" },
} as const;
