/**
 * The SMS program's keywords and texts, in one place: /terms lists the words, the n8n workflow (workflows/n8n,
 * generated from this module by `npm run workflow:build`) acts on them and sends the texts, and a test holds the 10DLC
 * kit (docs/sms-registration.md) to the same words.
 */

/**
 * Replies that revoke consent. The FCC's 2024 rule accepts any reasonable means, so the workflow reads them in any
 * case, punctuation ignored, alone or leading a longer reply ("Stop.", "stop texting me").
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

/**
 * What the sign-up page and its result page say to every visitor alike: only the phone undoes a STOP. Nothing a sign-up
 * answers tells whether its number ever replied STOP (docs/security.md).
 */
export const startAgainNote =
  "Replied STOP to one of our texts before? A sign-up on the web cannot turn our texts back on: reply START from that phone, and your sign-up goes through then.";

/** Replies that ask for help: answered with the HELP text. */
export const helpWords = ["HELP", "INFO"] as const;

/** The texts, each one GSM-7 segment (160 characters at most) with the support email in. */
export const smsTexts = {
  welcome:
    "Sous: You're on the early-access waitlist! We'll text when your spot opens. Msg freq varies. Msg & data rates may apply. Reply HELP for help, STOP to cancel.",
  help: (supportEmail: string) =>
    `Sous early access: customer-care & task-reminder texts. Msg frequency varies. Msg & data rates may apply. Help: ${supportEmail}. Reply STOP to cancel.`,
  stop: "Sous: You're unsubscribed and will get no more messages. To rejoin, reply START, then sign up again on our website.",
  /**
   * The launch invitation (`npm run invite`), with its own link on the site (SITE_URL/i/CODE): the customer-care notice
   * the chef asked for ("We'll text when your spot opens"), informational, never an offer
   * (docs/decisions/0012-invitation-is-a-status-notice.md).
   */
  invitation: (link: string) =>
    `Sous: Your early-access spot is open! Get started at ${link} Msg & data rates may apply. Reply STOP to cancel.`,
} as const;

// GSM 03.38's basic set: a text of these alone, 160 at most, is one segment.
const gsm7 = /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà]*$/;

/** Whether a text goes out as one SMS segment: GSM-7's basic characters only, 160 at most. */
export const isOneSegment = (text: string) => text.length <= 160 && gsm7.test(text);

/** The longest link the invitation holds in one segment. */
export const invitationLinkMax = 160 - smsTexts.invitation("").length;

/** Where the HELP text is used as a template (the workflow fills it in from SOUS_SUPPORT_EMAIL). */
export const supportEmailSlot = "{supportEmail}";
