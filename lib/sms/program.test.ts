import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { termsContent } from "@/components/legal/terms-content";
import { waitlistFields } from "@/lib/forms/waitlist";
import { helpWords, invitationLinkMax, isOneSegment, optOutWords, smsTexts } from "./program";

describe("the SMS program's texts", () => {
  it("are each one GSM-7 segment, the HELP text with a support email of up to 25 characters", () => {
    for (const text of [
      smsTexts.welcome,
      smsTexts.stop,
      smsTexts.help("support@example.com"),
      smsTexts.help("a".repeat(13) + "@example.com"),
      smsTexts.invitation("https://sous.example/start"),
    ]) {
      expect(isOneSegment(text)).toBe(true);
    }
  });

  it("fits the invitation in one segment with a link of up to invitationLinkMax characters, and no more", () => {
    expect(invitationLinkMax).toBe(57);
    const link = (length: number) => `https://sous.example/${"s".repeat(length - 21)}`;
    expect(isOneSegment(smsTexts.invitation(link(invitationLinkMax)))).toBe(true);
    expect(isOneSegment(smsTexts.invitation(link(invitationLinkMax + 1)))).toBe(false);
    // A character outside GSM-7's basic set makes it a UCS-2 text of 70 characters a segment.
    expect(isOneSegment(smsTexts.invitation("https://sous.example/~start"))).toBe(false);
    expect(isOneSegment("a".repeat(160))).toBe(true);
    expect(isOneSegment("a".repeat(161))).toBe(false);
  });

  it("are the ones the 10DLC kit gives the reviewers, with the same keywords", () => {
    const kit = readFileSync("docs/sms-registration.md", "utf8");
    const row = (label: string) => kit.match(new RegExp(`^\\| ${label}[^|]* \\| (.+?) *\\|$`, "m"))?.[1];
    expect(row("Welcome")).toBe(smsTexts.welcome);
    expect(row("Sample 1 \\(customer care: the early-access notice\\)")).toBe(
      smsTexts.invitation("https://sous.example/i/q3Vx8LmN0aZe"),
    );
    expect(row("HELP reply")).toBe(smsTexts.help("support@example.com"));
    expect(row("STOP reply")).toBe(smsTexts.stop);
    expect(kit.replace(/\s+/g, " ")).toContain(`**Opt-out keywords**: ${optOutWords.join(", ")}.`);
    expect(kit.replace(/\s+/g, " ")).toContain(`**Help keywords**: ${helpWords.join(", ")}.`);
  });

  it("call the invitation what the consent covers: a customer-care notice in the kit, the terms and its own words (decision 0012)", () => {
    const kit = readFileSync("docs/sms-registration.md", "utf8").replace(/\n> ?/g, " ").replace(/\s+/g, " ");
    // The checkbox's words, as the kit quotes them: customer care and task reminders, nothing else.
    expect(waitlistFields.consent.label).toContain("customer care and task reminder text messages");
    expect(kit).toContain(`whose text reads: "${waitlistFields.consent.label}"`);
    expect(kit).toContain("**Use case**: **Customer Care**.");
    expect(kit).not.toMatch(/\| Sample \d \(marketing/i);
    expect(kit).not.toMatch(/\*\*Use case\*\*: \*\*(Mixed|Marketing)/);
    // The welcome promised it; the terms say it goes once.
    expect(smsTexts.welcome).toContain("We'll text when your spot opens.");
    const program = termsContent(identityForTests).sections.find((section) => section.id === "program")!;
    const terms = program.blocks.join(" ");
    expect(terms).toContain("You will hear when your early-access spot opens");
    expect(terms).toContain("When your spot opens we text you once");
    // Informational: what happened and where to start, no offer.
    const text = smsTexts.invitation("https://sous.example/start");
    expect(text).toContain("Your early-access spot is open!");
    for (const word of promotional) expect(text.toLowerCase(), word).not.toContain(word);
    // The check's working twin: an offer is caught.
    expect(
      promotional.some((word) => "Sous: 50% off your first month! Offer ends Friday.".toLowerCase().includes(word)),
    ).toBe(true);
  });
});

/** Words of an offer, which the early-access notice never holds. */
const promotional = [
  "free",
  "discount",
  "% off",
  "$",
  "price",
  "offer",
  "deal",
  "save",
  "trial",
  "limited",
  "buy",
  "refer",
];

const identityForTests = {
  legalName: "Brigade Kitchen LLC",
  postalAddress: "",
  supportEmail: "help@sous.chef",
  effectiveDate: "2026-11-24",
  leadRetentionDays: 30,
  consentRetentionDays: 1_461,
  phoneCountries: ["US"],
};
