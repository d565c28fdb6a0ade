import { describe, expect, it } from "vitest";
import { disclosureOf } from "./disclosure";

describe("a disclosure's version", () => {
  it("is the sha256 of the exact words, in hex (FIPS 180-2's test vector, and a change of one character)", () => {
    expect(disclosureOf("abc")).toStrictEqual({
      text: "abc",
      version: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    });
    expect(disclosureOf("abc ").version).not.toBe(disclosureOf("abc").version);
    // Pinned from `printf %s 'Reply STOP to cancel.' | sha256sum`.
    expect(disclosureOf("Reply STOP to cancel.").version).toBe(
      "0c5a31c9f93c3fd335adaf4cd953458ae44ea3cad94bf24eb2096aa9e77efe76",
    );
  });
});
