import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { helpWords, optOutWords, smsTexts } from "./program";

// GSM 03.38's basic set: a text of these alone, 160 at most, is one segment.
const gsm7 = /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà]*$/;

describe("the SMS program's texts", () => {
  it("are each one GSM-7 segment, the HELP text with a support email of up to 25 characters", () => {
    for (const text of [
      smsTexts.welcome,
      smsTexts.stop,
      smsTexts.help("support@example.com"),
      smsTexts.help("a".repeat(13) + "@example.com"),
    ]) {
      expect(text).toMatch(gsm7);
      expect(text.length).toBeLessThanOrEqual(160);
    }
  });

  it("are the ones the 10DLC kit gives the reviewers, with the same keywords", () => {
    const kit = readFileSync("docs/sms-registration.md", "utf8");
    const row = (label: string) => kit.match(new RegExp(`^\\| ${label}[^|]* \\| (.+?) *\\|$`, "m"))?.[1];
    expect(row("Welcome")).toBe(smsTexts.welcome);
    expect(row("HELP reply")).toBe(smsTexts.help("support@example.com"));
    expect(row("STOP reply")).toBe(smsTexts.stop);
    expect(kit.replace(/\s+/g, " ")).toContain(`**Opt-out keywords**: ${optOutWords.join(", ")}.`);
    expect(kit.replace(/\s+/g, " ")).toContain(`**Help keywords**: ${helpWords.join(", ")}.`);
  });
});
