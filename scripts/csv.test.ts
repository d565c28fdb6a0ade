import { describe, expect, it } from "vitest";
import { csvField, toCsv } from "./csv";

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
    expect(toCsv(["id", "name"], [{ name: "Ada, L.", id: "msg_1" }, { id: "msg_2" }])).toBe('id,name\r\nmsg_1,"Ada, L."\r\nmsg_2,\r\n');
  });
});
