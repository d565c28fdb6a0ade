import { describe, expect, it } from "vitest";
import { escapeControls, escapeControlsInJson } from "./escape-controls.mjs";

// One of each kind of character a log line may be handed, by what Unicode calls it.
const samples = {
  "C0 controls": "\u0000\u0007\u001b[31m\r\t",
  "C1 controls": "\u0085\u009b",
  "bidi overrides, isolates and marks": "\u202e\u2066\u2069\u200e\u061c",
  "zero-width characters and the BOM": "\u200b\u200c\u200d\ufeff",
  "the line and paragraph separators": "\u2028\u2029",
  "tag characters (past U+FFFF)": "\u{e0067}\u{e0062}\u{e007f}",
  "emoji, a chef's joiner included": "\u{1f468}\u200d\u{1f373} \u{1f469}\u{1f3fd}",
  "letters of other scripts": "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 \u0915\u094d\u0937 \u00e9",
  "a lone surrogate": "a\ud800b",
};

describe("escapeControlsInJson", () => {
  it.each(Object.entries(samples))("gives a JSON reader back exactly the text it escaped: %s", (_, text) => {
    const line = escapeControlsInJson(JSON.stringify({ message: text }));
    expect(JSON.parse(line)).toStrictEqual({ message: text });
    // Nothing that acts on a terminal, reorders what is read, hides, or ends a line is left raw in the line.
    expect(line).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
  });

  it("writes a character past U+FFFF as its two halves, never as a longer \\u escape a reader would cut", () => {
    expect(escapeControlsInJson('"\u{e0067}"')).toBe('"\\udb40\\udc67"');
    expect(escapeControlsInJson('"\u202e\u2028"')).toBe('"\\u202e\\u2028"');
    // JSON's own line ends between lines stay.
    expect(escapeControlsInJson('{"a":1}\n{"b":2}')).toBe('{"a":1}\n{"b":2}');
  });

  it("reads every code point back the same, over the whole of Unicode but the surrogates", () => {
    const every: string[] = [];
    for (let point = 0; point <= 0x10ffff; point += 1)
      if (point < 0xd800 || point > 0xdfff) every.push(String.fromCodePoint(point));
    const text = every.join("");
    expect(JSON.parse(escapeControlsInJson(JSON.stringify(text)))).toBe(text);
  });
});

describe("escapeControls", () => {
  it("shows each control or format character as a visible escape, keeping what it is told to", () => {
    expect(escapeControls("a\u202eb\u{e0067}\n", "\n")).toBe("a\\u{202e}b\\u{e0067}\n");
  });
});
