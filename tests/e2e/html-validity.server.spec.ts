import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect, test } from "./fixtures";

type VnuMessage = { type: string; message: string; url: string; extract?: string };

const vnuJar = path.join(process.cwd(), "node_modules", "vnu-jar", "build", "dist", "vnu.jar");
const pages = {
  "home.html": "/",
  "signup.html": "/signup",
  "terms.html": "/terms",
  "privacy.html": "/privacy",
  "not-found.html": "/no-such-page",
};

// The stylesheet is inlined, so the checker reads Tailwind's CSS too. Its CSS
// module predates three things Tailwind 4 writes and browsers support: the
// @property rule, margin-trim (inside an @supports test), and a custom
// property named in transition-property. Every other CSS message still fails.
const cssTheCheckerDoesNotKnow = [
  /^CSS: Unrecognized at-rule “@property”/,
  /^CSS: “margin-trim”: Property “margin-trim” doesn't exist/,
  /^CSS: “transition-property”: “--tw-[\w-]+” is not a “transition-property” value/,
  // CSS Masking's shorthand with a position and size (the checklist's check mark), newer than the checker's CSS.
  /^CSS: “mask”: Too many values or values are not recognized/,
];

// The W3C Nu HTML Checker (the engine of validator.w3.org), run from the npm
// package's jar with the system's Java, over the HTML the server sends.
test("the three pages are valid HTML", async ({ request }) => {
  test.setTimeout(120_000);
  const dir = await mkdtemp(path.join(tmpdir(), "vnu-"));
  try {
    const files = [];
    for (const [file, page] of Object.entries(pages)) {
      const response = await request.get(page);
      expect(response.headers()["content-type"]).toContain("text/html");
      files.push(path.join(dir, file));
      await writeFile(files.at(-1) ?? "", await response.text());
    }
    const { stderr } = await promisify(execFile)(
      "java",
      ["-jar", vnuJar, "--errors-only", "--format", "json", "--exit-zero-always", ...files],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const { messages } = JSON.parse(stderr) as { messages: VnuMessage[] };
    const errors = messages.filter(({ message }) => !cssTheCheckerDoesNotKnow.some((known) => known.test(message)));
    expect(errors.map(({ url, message, extract }) => `${path.basename(url)}: ${message} ${extract ?? ""}`)).toEqual([]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
