import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
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
    expect(row("Sample 1")).toBe(smsTexts.invitation("https://sous.example/start"));
    expect(row("HELP reply")).toBe(smsTexts.help("support@example.com"));
    expect(row("STOP reply")).toBe(smsTexts.stop);
    expect(kit.replace(/\s+/g, " ")).toContain(`**Opt-out keywords**: ${optOutWords.join(", ")}.`);
    expect(kit.replace(/\s+/g, " ")).toContain(`**Help keywords**: ${helpWords.join(", ")}.`);
  });
});
