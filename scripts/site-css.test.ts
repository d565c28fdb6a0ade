import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stylesheetMarker } from "@/lib/style/marker";
import { buildProblems, buildStylesheet, stylesheetProblems } from "./site-css";

const css = `:root{${stylesheetMarker}}body{margin:0}`;
const page = (head: string, payload = "") =>
  `<!DOCTYPE html><html><head>${head}</head><body><main>Hi</main><script>self.__next_f.push([1,"${payload}"])</script></body></html>`;

describe("stylesheetProblems", () => {
  it("passes a page with the stylesheet once, in the server's <style>", () => {
    expect(stylesheetProblems(page(`<style id="site-css">${css}</style>`, '0:[\\"$\\",\\"main\\",null,{}]'))).toEqual(
      [],
    );
  });

  it("fails a page whose payload carries the stylesheet, as Next's inlineCss does", () => {
    const problems = stylesheetProblems(page(`<style id="site-css">${css}</style>`, `2:T1a,${css}`));
    expect(problems).toEqual([
      "the stylesheet 2 times (once expected)",
      "the stylesheet in the React Server Components payload",
    ]);
  });

  it("fails a page without it, or with it only somewhere else, or with a stylesheet link", () => {
    expect(stylesheetProblems(page(""))).toEqual([
      "the stylesheet 0 times (once expected)",
      'no stylesheet in <style id="site-css">',
    ]);
    expect(stylesheetProblems(page(`<style>${css}</style>`))).toEqual(['no stylesheet in <style id="site-css">']);
    expect(
      stylesheetProblems(
        page(`<style id="site-css">${css}</style><link rel="stylesheet" href="/_next/static/chunks/a.css"/>`),
      ),
    ).toEqual(["a stylesheet link"]);
  });
});

describe("buildStylesheet", () => {
  it("builds app/globals.css with Tailwind, minified, naming no file (no web font)", async () => {
    const text = await buildStylesheet();
    expect(text).toContain(stylesheetMarker);
    // Classes the components use, and the component classes of globals.css.
    for (const rule of [".bg-cream{", ".btn{", ".icon{", ".field-input{"]) expect(text).toContain(rule);
    expect(text).not.toContain("node_modules");
    expect(text).not.toMatch(/\n\s+/);
    expect(text).not.toContain("@font-face");
    expect(text).not.toMatch(/url\((?!["']?data:)/);
    // The checklist's check mark is drawn inline.
    expect(text).toContain('url("data:image/svg+xml,');
  });

  /** The words of the UI's own files, split roughly as Tailwind reads them: on spaces, quotes, braces and the like. */
  async function uiWords() {
    const root = path.resolve(import.meta.dirname, "..");
    const uiFiles = (
      await Promise.all(
        ["app", "components", "lib"].map(async (folder) =>
          (await readdir(path.join(root, folder), { recursive: true, withFileTypes: true }))
            .filter((entry) => entry.isFile() && !entry.name.startsWith("site-css."))
            .map((entry) => path.join(entry.parentPath, entry.name)),
        ),
      )
    ).flat();
    const sources = await Promise.all(uiFiles.map((file) => readFile(file, "utf8")));
    return new Set(sources.flatMap((source) => source.split(/[\s"'`{}<>;=]+/)));
  }

  /** Each class selector, unescaped (".sm\\:py-28" is the class sm:py-28), leaving out comments and file names. */
  function classesOf(css: string) {
    const rules = css.replace(/\/\*[\s\S]*?\*\//g, "").replace(/url\([^)]*\)/g, "");
    return new Set([...rules.matchAll(/\.((?:\\.|[\w-])+)/g)].map((match) => match[1]!.replace(/\\(.)/g, "$1")));
  }

  const namedNowhere = (classes: Set<string>, words: Set<string>) =>
    [...classes].filter((name) => !/^\d/.test(name) && !words.has(name));

  it("holds only the utilities the UI's own files name: words in server code, scripts, docs or tests add none", async () => {
    const text = await buildStylesheet();
    const classes = classesOf(text);
    expect(classes.size).toBeGreaterThan(100);
    expect(namedNowhere(classes, await uiWords())).toEqual([]);
  });

  it("would name a utility that came from a word outside the UI, as .grow did from a comment in server/", async () => {
    const text = await buildStylesheet();
    expect(namedNowhere(classesOf(`${text}.grow{flex-grow:1}.sm\\:grow{flex-grow:1}`), await uiWords())).toEqual([
      "grow",
      "sm:grow",
    ]);
  });
});

describe("buildProblems, over a build's files", () => {
  /** A build folder with these files (path → text). */
  async function build(files: Record<string, string>) {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-site-css-"));
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    return dir;
  }
  const good = page(`<style id="site-css">${css}</style>`);

  it("passes a build whose every page holds the stylesheet once", async () => {
    const dir = await build({
      "server/app/index.html": good,
      "server/app/signup.html": good,
      "server/app/_global-error.html": "<style>body{}</style>",
      "cache/images/x.css": "a{}",
    });
    try {
      expect(await buildProblems(dir)).toStrictEqual({ problems: [], pages: 2 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("names every page, payload and stylesheet that is wrong", async () => {
    const dir = await build({
      "server/app/index.html": good,
      // A second copy of the stylesheet on one page.
      "server/app/signup.html": page(`<style id="site-css">${css}</style><style>${css}</style>`),
      "server/app/signup.rsc": `2:T1a,${css}`,
      "static/chunks/site.css": "a{}",
    });
    try {
      expect(await buildProblems(dir)).toStrictEqual({
        pages: 2,
        problems: expect.arrayContaining([
          `${path.join("server", "app", "signup.html")}: the stylesheet 2 times (once expected)`,
          `${path.join("server", "app", "signup.rsc")}: the stylesheet in a payload file`,
          `${path.join("static", "chunks", "site.css")}: Next emitted a stylesheet of its own`,
        ]),
      });
      expect((await buildProblems(dir)).problems).toHaveLength(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const empty = await build({});
    try {
      expect((await buildProblems(empty)).problems).toStrictEqual([`no prerendered page in ${empty}`]);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
