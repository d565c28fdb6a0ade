export type FormName = "contact" | "waitlist";
