import type { BusinessIdentity } from "@/lib/business-identity";
import { addressLine, reviewNote, type LegalDocument } from "./legal-document";

const years = (days: number) => Math.round((days / 365.25) * 10) / 10;

/** The /privacy page: what the site collects, why, who sees it, how long it is kept, and how to ask about it. */
export function privacyContent(identity: BusinessIdentity): LegalDocument {
  const { legalName, supportEmail, leadRetentionDays, consentRetentionDays } = identity;
  return {
    metaTitle: "Privacy Policy",
    metaDescription:
      "What the Sous website collects, why, who it is shared with, how long it is kept, and how to ask for a copy or deletion.",
    title: "Privacy Policy",
    intro: `This policy explains what ${legalName} collects through the Sous website, the early-access waitlist and the contact form, and what we do with it.`,
    sections: [
      {
        id: "who-we-are",
        heading: "Who we are",
        blocks: [
          `${legalName} runs the Sous website and its early-access text message program.`,
          { list: [legalName, addressLine(identity), supportEmail] },
        ],
      },
      {
        id: "what-we-collect",
        heading: "What we collect",
        blocks: [
          {
            list: [
              "When you join the waitlist: your name and mobile number.",
              "When you ask for a quote: your name, email address, phone number if you give it, how many clients you serve, the tools you use, and your message.",
              "When you agree to receive texts, a record of that consent: the time (in UTC), the IP address your request came from, your browser's user agent, the address of the page, whether the page's JavaScript sent the form, and the exact consent wording you saw.",
              "When you stop texts, when and how you asked.",
            ],
          },
          "Our server logs note that a form was sent and how its delivery went, never your name, number, email address or message. We count requests per IP address for a short time to stop abuse. We use no advertising cookies.",
          "When you first open one of our pages, one cookie (sous_touch) remembers for 30 days how you came: the campaign named in the link, the website that sent you, and the page you landed on. It holds nothing that identifies you, is read only by our server, and is kept with your request if you send one, so we know which posts and sites bring chefs.",
        ],
      },
      {
        id: "why",
        heading: "Why we use it",
        blocks: [
          {
            list: [
              "To answer your quote request.",
              "To send the early-access texts you agreed to, and to stop them when you ask.",
              "To be able to show that you agreed, and when you opted out.",
              "To keep the forms safe from abuse.",
            ],
          },
        ],
      },
      {
        id: "sharing",
        heading: "Who we share it with",
        blocks: [
          "Only the service providers that do the work for us: our workflow-automation provider, which receives your sign-up or request, and our SMS provider, which sends the texts, as well as our hosting and database providers. They use it only to provide their service to us.",
          "We do not share, sell or rent your mobile information to third parties or affiliates for their marketing or promotional purposes. Text messaging opt-in data and consent are not shared with any third parties, except the providers that send our messages on our behalf.",
          "We disclose information when the law requires it.",
        ],
      },
      {
        id: "retention",
        heading: "How long we keep it",
        blocks: [
          {
            list: [
              `A sign-up or quote request stays on this site until it has reached our workflow, and its contents are deleted ${leadRetentionDays} days after that. Our workflow and the tools behind it keep their own copy under this policy.`,
              `A consent record, and the record of an opt-out, are kept for ${consentRetentionDays} days (about ${years(consentRetentionDays)} years), the time within which a claim about texts can be brought, and then deleted.`,
              "Counts of requests per IP address last no longer than the limit they enforce, a day by default.",
            ],
          },
        ],
      },
      {
        id: "your-choices",
        heading: "Your choices",
        blocks: [
          "Reply STOP to any text to stop them.",
          `Write to ${supportEmail} to ask for a copy of what we hold about you, to correct it, or to delete it. We answer within 30 days. If you ask us to delete your details after opting out, we keep only the record of your opt-out, so that we never text you again.`,
        ],
      },
      {
        id: "security",
        heading: "Security",
        blocks: [
          "The site is served over HTTPS, the records are kept in a database only our operators can reach, and every delivery to our workflow is signed so it cannot be forged.",
        ],
      },
      {
        id: "children",
        heading: "Children",
        blocks: ["Sous is a tool for working chefs. We do not knowingly collect information from anyone under 18."],
      },
      {
        id: "changes",
        heading: "Changes to this policy",
        blocks: ["If we change this policy, the effective date above changes with it.", reviewNote(identity)],
      },
    ],
  };
}
