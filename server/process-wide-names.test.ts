import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sourceFilesUnder } from "@/tests/support/source-files";

// Reads the sources as text, so it is left out of mutation runs (vitest.config.mts): Stryker's sandbox rewrites each
// `processWide("name"` it instruments, and the dry run of a whole run found no name at all.
describe("processWide's names", () => {
  it("are each owned by one module", () => {
    const used = new Map<string, Set<string>>();
    for (const file of sourceFilesUnder("server"))
      for (const [, name] of readFileSync(file, "utf8").matchAll(/processWide\("([\w-]+)"/g))
        used.set(name!, new Set([...(used.get(name!) ?? []), file]));
    expect(used.size).toBeGreaterThan(5);
    expect([...used].filter(([, owners]) => owners.size > 1)).toStrictEqual([]);
  });
});
