import { describe, expect, it } from "vitest";
import { multiline, trimmedText } from "./text";

describe("trimmedText", () => {
  const field = trimmedText(5);

  it("trims, and drops control, format and line-break characters before counting", () => {
    expect(field.parse("  Ada \u200b\u0007 ")).toBe("Ada");
    expect(field.parse("Ad\na\u2028!")).toBe("Ada!");
    // Ten characters typed, five kept: the cap counts what is kept.
    expect(field.parse("\u200bA\u200bd\u200ba\u200b!\u200b?")).toBe("Ada!?");
  });

  it("refuses a longer value with the default message, or the form's own", () => {
    expect(field.safeParse("abcdef").error?.issues[0]?.message).toBe("Please use at most 5 characters.");
    expect(trimmedText(1200).safeParse("a".repeat(1201)).error?.issues[0]?.message).toBe(
      "Please use at most 1,200 characters.",
    );
    expect(trimmedText(2, "Too long").safeParse("abc").error?.issues[0]?.message).toBe("Too long");
    expect(field.parse("abcde")).toBe("abcde");
  });
});

describe("multiline", () => {
  it("keeps line breaks as \\n and drops every other control character", () => {
    expect(multiline("one\r\ntwo\rthree\nfour")).toBe("one\ntwo\nthree\nfour");
    expect(multiline("a\u0000b\u0007c\td")).toBe("abcd");
    expect(multiline("a\u2028b\u2029c")).toBe("abc");
  });

  it("drops format characters too, which would reorder or hide what every receiver reads", () => {
    expect(multiline("pay \u202eevil\u202c now")).toBe("pay evil now");
    expect(multiline("a\u061cb\u200bc\u2066d\u2069e\ufeff")).toBe("abcde");
    expect(multiline("first line\u200e\nsecond")).toBe("first line\nsecond");
  });

  it("is what a multi-line field cleans with", () => {
    expect(trimmedText(50, undefined, multiline).parse(" Dear chef,\r\n\r\nthanks \u0007")).toBe(
      "Dear chef,\n\nthanks",
    );
  });
});
