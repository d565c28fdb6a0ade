import type { BusinessIdentity } from "@/lib/business-identity";

/** A paragraph, or a bulleted list. */
export type LegalBlock = string | { list: readonly string[] };

export type LegalSection = { id: string; heading: string; blocks: readonly LegalBlock[] };

/** One legal page: its words, filled in with the business's identity and retention settings. */
export type LegalDocument = {
  metaTitle: string;
  metaDescription: string;
  title: string;
  intro: string;
  sections: readonly LegalSection[];
};

/** "November 24, 2026" from "2026-11-24", the same wherever the page renders. */
export const longDate = (date: string) =>
  new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(new Date(`${date}T00:00:00Z`));

/** How the pages name where to write: the postal address, or an offer to send it when none is set yet. */
export const addressLine = (identity: BusinessIdentity) =>
  identity.postalAddress || `Postal address available on request at ${identity.supportEmail}.`;

export const reviewNote = (identity: BusinessIdentity) =>
  `This page is written in plain language and is not legal advice. ${identity.legalName} should have it reviewed by a lawyer for the places where it operates.`;

export const opener = (identity: BusinessIdentity) => `Effective ${longDate(identity.effectiveDate)}`;
