import { optOutWords } from "@/lib/sms/program";
import type { BusinessIdentity } from "@/lib/business-identity";
import { addressLine, reviewNote, type LegalDocument } from "./legal-document";

/** The opt-out words the workflow honours besides STOP (lib/sms/program.ts holds the list). */
const otherOptOutWords = optOutWords.filter((word) => word !== "STOP");

// Country names English puts "the" before.
const withThe = new Set(["US", "GB", "NL", "PH", "AE", "BS", "DO", "GM", "CF", "CD", "CG", "KY", "VA", "MV", "SC"]);

/** "the United States and Canada": the countries of WAITLIST_PHONE_COUNTRIES, as a sentence says them. */
export function countriesInWords(codes: readonly string[]) {
  const names = new Intl.DisplayNames("en", { type: "region" });
  const words = codes.map((code) => `${withThe.has(code) ? "the " : ""}${names.of(code) ?? code}`);
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words.at(-1)}` : (words[0] ?? "");
}

/** The /terms page: the SMS program's terms, as carriers' reviewers expect to find them linked from the opt-in. */
export function termsContent(identity: BusinessIdentity): LegalDocument {
  const { legalName, supportEmail } = identity;
  return {
    metaTitle: "SMS Terms",
    metaDescription:
      "The terms of Sous early access text messages: what we send, how often, what it costs, and how to stop with STOP or get help with HELP.",
    title: "SMS Terms",
    intro: `These terms cover the Sous early access text message program, run by ${legalName}. They apply when you join the waitlist and agree to receive texts.`,
    sections: [
      {
        id: "program",
        heading: "The program",
        blocks: [
          "Sous early access sends recurring automated customer-care and task-reminder text messages to the mobile number you give when you join the waitlist on our sign-up page.",
          "You will hear when your early-access spot opens, get help setting up the assistant, and receive reminders about the tasks you hand it, such as invoices and client follow-ups.",
          "When your spot opens we text you once, with a link to our website to get started. We send it in the daytime where your number is, never before 8 a.m. or after 9 p.m., and never after you have replied STOP.",
        ],
      },
      {
        id: "frequency-and-cost",
        heading: "How often, and what it costs",
        blocks: [
          "Message frequency varies with what is happening with your account.",
          "Message and data rates may apply. Your mobile carrier's plan decides what you pay; we charge nothing for the texts.",
        ],
      },
      {
        id: "opt-out",
        heading: "How to stop",
        blocks: [
          `Reply STOP to any message to cancel. We also honour ${otherOptOutWords.slice(0, -1).join(", ")} and ${otherOptOutWords.at(-1)}, in any case, alone or at the start of a longer reply.`,
          "After you opt out you get one text confirming it, and no more messages after that. To join again, reply START, then sign up again on our sign-up page.",
          `You can also ask us to stop by writing to ${supportEmail}.`,
        ],
      },
      {
        id: "help",
        heading: "Help",
        blocks: [`Reply HELP to any message for help, or write to ${supportEmail}.`],
      },
      {
        id: "carriers",
        heading: "Carriers",
        blocks: ["Carriers are not liable for delayed or undelivered messages."],
      },
      {
        id: "not-a-condition",
        heading: "Consent is not a condition of purchase",
        blocks: ["You do not have to agree to receive texts to buy anything from us, now or later."],
      },
      {
        id: "eligibility",
        heading: "Who can join",
        blocks: [
          `The program is open to mobile numbers in ${countriesInWords(identity.phoneCountries)}.`,
          "You must be the holder of the number you give, or have the holder's permission to enrol it.",
        ],
      },
      {
        id: "privacy",
        heading: "Your information",
        blocks: [
          "Our Privacy Policy explains what we keep about you, including the record of your consent, and for how long. We do not share your mobile number or your opt-in data with third parties or affiliates for their marketing.",
        ],
      },
      {
        id: "changes",
        heading: "Changes to these terms",
        blocks: [
          "If we change these terms, the effective date above changes with them. We keep the exact wording you agreed to with the record of your consent.",
        ],
      },
      {
        id: "contact",
        heading: "Contact",
        blocks: [{ list: [legalName, addressLine(identity), supportEmail] }, reviewNote(identity)],
      },
    ],
  };
}
