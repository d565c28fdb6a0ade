import { describe, expect, it } from "vitest";
import { maskedPath } from "./masked-path";

describe("maskedPath", () => {
  it("masks an email address or a phone number typed into a path, encoded or not", () => {
    expect(maskedPath("/unsubscribe/chef@example.com")).toBe("/unsubscribe/[email]");
    expect(maskedPath("/unsubscribe/chef%40example.com")).toBe("/unsubscribe/[email]");
    expect(maskedPath("/stop/+15552014480")).toBe("/stop/[phone]");
    expect(maskedPath("/stop/(555)%20201-4480/now")).toBe("/stop/[phone]/now");
    expect(maskedPath("/call/555.201.4480")).toBe("/call/[phone]");
  });

  it("keeps what names no one: the path's words, short numbers, a bad encoding as it came", () => {
    expect(maskedPath("/wp-login.php")).toBe("/wp-login.php");
    expect(maskedPath("/blog/2026/11/page-2")).toBe("/blog/2026/11/page-2");
    expect(maskedPath("/%E0%A4%A")).toBe("/%E0%A4%A");
    expect(maskedPath(`/${"a".repeat(300)}`)).toHaveLength(200);
  });
});
