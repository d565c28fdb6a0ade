import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Installed packages, builds, test and bench output, and the generated results: not the project's documents.
const notDocuments = /(^|\/)(node_modules|\.[^/]+|reports|test-results|playwright-report)\//;

/**
 * The project's Markdown files, found on disk rather than through git: a
 * mutation run's copy of the project has no repository.
 */
const documents = readdirSync(".", { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".md") && !notDocuments.test(file))
  .sort();

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

function anchorsOf(file: string) {
  const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1]!.trim())));
}

/** Every relative link of a document: [text](target), outside code blocks and spans. */
function linksOf(file: string) {
  const text = readFileSync(file, "utf8")
    .replace(/```[\s\S]*?```/g, "")
    .replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^(https?:|mailto:)/.test(target));
}

describe("links between the documents", () => {
  it("finds the documents", () => {
    expect(documents).toEqual(
      expect.arrayContaining(["README.md", "docs/operating.md", "docs/performance.md", "bench/floor/README.md"]),
    );
  });

  it.each(documents)("%s links only to files and headings that exist", (file) => {
    const broken = linksOf(file).filter((link) => {
      const [target, anchor] = link.split("#") as [string, string | undefined];
      const resolved = target ? path.join(path.dirname(file), decodeURIComponent(target)) : file;
      if (!existsSync(resolved)) return true;
      if (!anchor) return false;
      return !statSync(resolved).isFile() || !resolved.endsWith(".md") || !anchorsOf(resolved).has(anchor);
    });
    expect(broken).toStrictEqual([]);
  });
});
