/**
 * The SMS program's keywords and texts, in one place: /terms lists the words,
 * the n8n workflow (workflows/n8n, generated from this module by
 * `npm run workflow:build`) acts on them and sends the texts, and a test holds
 * the 10DLC kit (docs/sms-registration.md) to the same words.
 */

/**
 * Replies that revoke consent. The FCC's 2024 rule accepts any reasonable
 * means, so the workflow reads them in any case, punctuation ignored, alone or
 * leading a longer reply ("Stop.", "stop texting me").
 */
export const optOutWords = [
  "STOP",
  "STOPALL",
  "QUIT",
  "END",
  "REVOKE",
  "OPT OUT",
  "OPTOUT",
  "CANCEL",
  "UNSUBSCRIBE",
] as const;

/** Replies that lift a carrier's block (Twilio's opt-out handling confirms them). */
export const optInWords = ["START", "UNSTOP"] as const;

/** Replies that ask for help: answered with the HELP text. */
export const helpWords = ["HELP", "INFO"] as const;

/** The texts, each one GSM-7 segment (160 characters at most) with the support email in. */
export const smsTexts = {
  welcome:
    "Sous: You're on the early-access waitlist! We'll text when your spot opens. Msg freq varies. Msg & data rates may apply. Reply HELP for help, STOP to cancel.",
  help: (supportEmail: string) =>
    `Sous early access: customer-care & task-reminder texts. Msg frequency varies. Msg & data rates may apply. Help: ${supportEmail}. Reply STOP to cancel.`,
  stop: "Sous: You're unsubscribed and will get no more messages. To rejoin, reply START, then sign up again on our website.",
} as const;

/** Where the HELP text is used as a template (the workflow fills it in from SOUS_SUPPORT_EMAIL). */
export const supportEmailSlot = "{supportEmail}";
