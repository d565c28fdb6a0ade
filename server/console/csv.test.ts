import { describe, expect, it } from "vitest";
import { csvField, spreadsheetSafe, toCsv } from "./csv";

describe("CSV (RFC 4180)", () => {
  it("quotes a field only when it holds a comma, a quote or a line break, and doubles quotes", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField("+15551234567")).toBe("+15551234567");
    expect(csvField("a, b")).toBe('"a, b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    expect(csvField("cr\rhere")).toBe('"cr\rhere"');
    expect(csvField(undefined)).toBe("");
    expect(csvField(null)).toBe("");
    expect(csvField(3)).toBe("3");
  });

  it("writes a header row and one CRLF-ended row per record, in the columns' order", () => {
    expect(toCsv(["id", "name"], [{ name: "Ada, L.", id: "msg_1" }, { id: "msg_2" }])).toBe(
      'id,name\r\nmsg_1,"Ada, L."\r\nmsg_2,\r\n',
    );
  });

  it("writes a value a spreadsheet would run as a formula with a leading ', whatever its column", () => {
    const attacks = {
      '=HYPERLINK("http://evil.test/x","Open")': `"'=HYPERLINK(""http://evil.test/x"",""Open"")"`,
      "@SUM(1+1)*cmd|' /C calc'!A0": "'@SUM(1+1)*cmd|' /C calc'!A0",
      "-2+3+cmd|' /C calc'!A0": "'-2+3+cmd|' /C calc'!A0",
      "+SUM(A1)": "'+SUM(A1)",
      "=1+1": "'=1+1",
      "\t=1+1": "'\t=1+1",
      "\r=1+1": `"'\r=1+1"`,
      "+1 555 123 4567": "'+1 555 123 4567",
      "+15551234567 =1": "'+15551234567 =1",
    };
    for (const [value, written] of Object.entries(attacks))
      expect(csvField(value), JSON.stringify(value)).toBe(written);
  });

  it("keeps an exact E.164 number, and text that only holds a formula character later, as they are", () => {
    for (const value of ["+15551234567", "+447911123456", "Ada = cook", "a+b", "me@sous.test", " =1+1", "'quoted"])
      expect(spreadsheetSafe(value)).toBe(value);
    expect(spreadsheetSafe("+1555")).toBe("'+1555");
    expect(spreadsheetSafe("+05551234567")).toBe("'+05551234567");
    expect(spreadsheetSafe("")).toBe("");
  });
});
