import { defineForm } from "../define";
import { emptyWaitlistValues, waitlistFields, waitlistMessages } from "./words";

export * from "./words";

/** The early-access waitlist on /signup: a name and a number to text, with consent. */
export const waitlist = defineForm({
  name: "waitlist",
  permalink: "/signup",
  event: "Waitlist Signup",
  fields: waitlistFields,
  emptyValues: emptyWaitlistValues,
  messages: waitlistMessages,
  schema: async (policy) => (await import("./schema")).waitlistSchema(policy),
  // The consent box is checked by the schema and never leaves the server.
  payload: ["phone", "name"],
  consent: { phone: "phone", checkbox: "consent" },
  // Every sign-up makes the workflow text a number: the target of SMS pumping.
  limits: {
    phone: "phone",
    ceiling: {
      perMinute: { variable: "RATE_LIMIT_WAITLIST_PER_MINUTE", fallback: 30 },
      perDay: { variable: "WAITLIST_DAILY_LIMIT", fallback: 500 },
    },
  },
});
