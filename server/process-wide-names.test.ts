import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sourceFilesUnder } from "@/tests/support/source-files";

// Reads the sources as text, so it is left out of mutation runs (vitest.config.mts): Stryker's sandbox rewrites each
// `processWide("name"` it instruments, and the dry run of a whole run found no name at all.
describe("process-wide.ts's list of names", () => {
  it("names every value the server keeps process-wide, with the module that owns it, and no other", () => {
    const used = new Map<string, Set<string>>();
    for (const file of sourceFilesUnder("server"))
      for (const [, name] of readFileSync(file, "utf8").matchAll(/processWide\("([\w-]+)"/g))
        used.set(
          name!,
          new Set([...(used.get(name!) ?? []), file.replace(/^server\//, "").replace(/\.(ts|tsx|mts|mjs)$/, "")]),
        );
    const listed = [...readFileSync("server/process-wide.ts", "utf8").matchAll(/ \* - `([\w-]+)` \(([\w/-]+)\)/g)];
    expect(used.size).toBeGreaterThan(5);
    expect(Object.fromEntries(listed.map(([, name, owner]) => [name, owner]))).toStrictEqual(
      Object.fromEntries([...used].map(([name, owners]) => [name, [...owners].join(", ")])),
    );
  });
});
