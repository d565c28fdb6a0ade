import "server-only";
import { createHash } from "node:crypto";

/** A consent text and its version: the sha256 of the exact words, in hex. */
export type Disclosure = { version: string; text: string };

export const disclosureOf = (text: string): Disclosure => ({
  version: createHash("sha256").update(text).digest("hex"),
  text,
});
