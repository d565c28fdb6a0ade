import { describe, expect, it } from "vitest";
import type { BusinessIdentity } from "@/lib/business-identity";
import { longDate, type LegalDocument } from "./legal-document";
import { privacyContent } from "./privacy-content";
import { termsContent } from "./terms-content";

const identity: BusinessIdentity = {
  legalName: "Brigade Kitchen LLC",
  postalAddress: "500 Market St, San Francisco, CA 94105, USA",
  supportEmail: "help@sous.chef",
  effectiveDate: "2026-11-24",
  leadRetentionDays: 30,
  consentRetentionDays: 1_461,
  phoneCountries: ["US", "CA"],
};

/** Every word a page shows, in order. */
const wordsOf = (document: LegalDocument) =>
  [
    document.title,
    document.intro,
    ...document.sections.flatMap((section) => [
      section.heading,
      ...section.blocks.flatMap((block) => (typeof block === "string" ? [block] : block.list)),
    ]),
  ].join("\n");

describe("the SMS terms", () => {
  const terms = wordsOf(termsContent(identity));

  it("name the program, what it sends, and who runs it", () => {
    expect(terms).toContain("Sous early access");
    expect(terms).toContain("recurring automated customer-care and task-reminder text messages");
    expect(terms).toContain("Brigade Kitchen LLC");
    expect(terms).toContain("500 Market St, San Francisco, CA 94105, USA");
  });

  it("say what carriers' reviewers look for: frequency, rates, STOP and every opt-out word, HELP, liability, purchase, eligibility", () => {
    expect(terms).toContain("Message frequency varies");
    expect(terms).toContain("Message and data rates may apply");
    expect(terms).toContain("Reply STOP to any message to cancel");
    expect(terms).toContain(
      "We also honour STOPALL, QUIT, END, REVOKE, OPT OUT, OPTOUT, CANCEL and UNSUBSCRIBE, in any case",
    );
    expect(terms).toContain("To join again, reply START, then sign up again");
    expect(terms).toContain("Reply HELP to any message for help, or write to help@sous.chef");
    expect(terms).toContain("Carriers are not liable for delayed or undelivered messages");
    expect(terms).toContain("Consent is not a condition of purchase");
    expect(terms).toContain("United States and Canada");
    expect(terms).toContain("not legal advice");
  });
});

describe("the countries the terms open the program to", () => {
  it("are WAITLIST_PHONE_COUNTRIES, named as a sentence names them", async () => {
    const { countriesInWords } = await import("./terms-content");
    expect(countriesInWords(["US", "CA"])).toBe("the United States and Canada");
    expect(countriesInWords(["US"])).toBe("the United States");
    expect(countriesInWords(["CA", "GB", "FR"])).toBe("Canada, the United Kingdom and France");
    expect(wordsOf(termsContent({ ...identity, phoneCountries: ["US"] }))).toContain(
      "open to mobile numbers in the United States.",
    );
    expect(wordsOf(termsContent({ ...identity, phoneCountries: ["US"] }))).not.toContain("Canada");
  });
});

describe("the privacy policy", () => {
  const privacy = wordsOf(privacyContent(identity));

  it("lists what is collected, the consent record included", () => {
    for (const item of [
      "name and mobile number",
      "email address",
      "IP address",
      "user agent",
      "the time (in UTC)",
      "exact consent wording",
    ]) {
      expect(privacy).toContain(item);
    }
  });

  it("says in so many words that mobile opt-in data and consent are not shared or sold for marketing", () => {
    expect(privacy).toContain(
      "We do not share, sell or rent your mobile information to third parties or affiliates for their marketing",
    );
    expect(privacy).toContain("Text messaging opt-in data and consent are not shared with any third parties");
  });

  it("gives each kind of record's retention from the settings in force", () => {
    expect(privacy).toContain("deleted 30 days after that");
    expect(privacy).toContain("kept for 1461 days (about 4 years)");
    expect(wordsOf(privacyContent({ ...identity, consentRetentionDays: 2_000 }))).toContain(
      "2000 days (about 5.5 years)",
    );
  });

  it("says how to ask for access or deletion, and who the business is", () => {
    expect(privacy).toContain("Write to help@sous.chef to ask for a copy");
    expect(privacy).toContain("delete it");
    expect(privacy).toContain("Brigade Kitchen LLC runs the Sous website");
  });

  it("offers the address on request while none is set", () => {
    expect(wordsOf(privacyContent({ ...identity, postalAddress: "" }))).toContain(
      "Postal address available on request at help@sous.chef.",
    );
  });
});

it("dates both pages the same way wherever they render", () => {
  expect(longDate("2026-11-24")).toBe("November 24, 2026");
  expect(longDate("2027-01-01")).toBe("January 1, 2027");
});
