import { readdirSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The source files under a folder (or the file itself), for the tests that read the project's code as text: every
 * `.ts`, `.tsx`, `.mts` and `.mjs`, but tests, specs and type declarations. Relative paths, as given.
 */
export function sourceFilesUnder(entry: string): string[] {
  return statSync(entry).isDirectory()
    ? readdirSync(entry).flatMap((name) => sourceFilesUnder(path.join(entry, name)))
    : /\.(ts|tsx|mts|mjs)$/.test(entry) && !/\.(test|spec)\.|\.d\.ts$/.test(entry)
      ? [entry]
      : [];
}
