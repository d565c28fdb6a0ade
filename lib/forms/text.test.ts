import { describe, expect, it } from "vitest";
import { multiline, trimmedText } from "./text";

describe("trimmedText", () => {
  // Made in each test, not at collection: what a test checks is built while it runs.
  const field = {
    parse: (text: string) => trimmedText(5).parse(text),
    safeParse: (text: string) => trimmedText(5).safeParse(text),
  };

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

describe("what writing needs of the invisible characters", () => {
  const name = { parse: (text: string) => trimmedText(80).parse(text) };
  // Each as typed, and each kept as typed, by a one-line field and a multi-line one alike.
  const written = {
    "a chef": "\u{1F468}\u200D\u{1F373}",
    "a chef with a skin tone": "\u{1F469}\u{1F3FD}\u200D\u{1F373}",
    "a heart on fire (a variation selector before the joiner)": "\u2764\uFE0F\u200D\u{1F525}",
    "the flag of England (tag characters)": "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
    "a Persian word with a non-joiner": "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645",
    "a Hindi half form": "\u0915\u094D\u200D\u0937",
    "a Malayalam chillu at a word's end": "\u0D05\u0D35\u0D28\u0D4D\u200D tea",
  };

  it.each(Object.entries(written))("keeps %s as written", (_, text) => {
    expect(name.parse(`Chef ${text} Ada`)).toBe(`Chef ${text} Ada`);
    expect(multiline(`Dear chef ${text}\nthanks`)).toBe(`Dear chef ${text}\nthanks`);
  });

  const disguises = {
    "a joiner between Latin letters": ["pay\u200Dpal", "paypal"],
    "a non-joiner between Latin letters": ["pay\u200Cpal", "paypal"],
    "a joiner after a combining mark": ["pa\u0301\u200Dypal", "pa\u0301ypal"],
    "a joiner after an emoji, before a letter": ["\u{1F373}\u200Dx", "\u{1F373}x"],
    "a zero-width space between emoji": ["\u{1F468}\u200B\u{1F373}", "\u{1F468}\u{1F373}"],
    "tags outside a flag": ["a\u{E0067}\u{E0062}b", "ab"],
    "a flag's tags with no cancel tag": ["\u{1F3F4}\u{E0067}\u{E0062}", "\u{1F3F4}"],
    "a right-to-left override": ["pay \u202Eevil", "pay evil"],
    "an isolate": ["a\u2066b\u2069c", "abc"],
  };

  it.each(Object.entries(disguises))("drops %s", (_, [typed, kept]) => {
    expect(name.parse(typed!)).toBe(kept);
    expect(multiline(typed!)).toBe(kept);
  });
});
