// The stylesheet, built apart from Next's CSS so a page carries it once, in a <style> only the server writes, never
// in the RSC payload (decision 0003). `prepare` builds it before `next build`; `finish` fails the build when a page
// holds it other than once or Next emitted a stylesheet of its own.
import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import tailwind from "@tailwindcss/postcss";
import { PHASE_PRODUCTION_BUILD } from "next/constants";
import postcss from "postcss";
import nextConfig from "../next.config";
import { stylesheetMarker } from "../lib/style/marker";

const root = path.resolve(import.meta.dirname, "..");
const source = path.join(root, "app", "globals.css");
export const generatedModule = path.join(root, "lib", "style", "site-css.generated.js");
/** The console's own stylesheet, for its pages only (components/console/console-styles.tsx). */
const consoleSource = path.join(root, "app", "console", "console.css");
export const consoleModule = path.join(root, "lib", "style", "console-css.generated.js");

/** Tailwind's output for a stylesheet, minified: app/globals.css unless told. */
export async function buildStylesheet(from = source) {
  const css = await readFile(from, "utf8");
  const { css: text } = await postcss([tailwind({ base: root, optimize: { minify: true } })]).process(css, { from });
  if (from === source && !text.includes(stylesheetMarker))
    throw new Error(`site-css: ${stylesheetMarker} is missing from the built stylesheet (app/globals.css)`);
  // A url() would be a request the first paint may wait for, and nothing here serves node_modules.
  if (/url\((?!["']?data:)/.test(text))
    throw new Error(`site-css: ${path.relative(root, from)} names a file (url()); draw it inline or not at all`);
  return text;
}

async function prepare() {
  for (const [from, module] of [
    [source, generatedModule],
    [consoleSource, consoleModule],
  ] as const) {
    const text = await buildStylesheet(from);
    await writeFile(
      module,
      `// Written by scripts/site-css.ts prepare: not edited by hand, not committed.\nconst css = ${JSON.stringify(text)};\nexport default css;\n`,
    );
    console.log(`site-css: ${path.relative(root, from)}, ${text.length} bytes`);
  }
}

async function* files(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    // Next's build cache holds no output.
    if (entry.isDirectory() && entry.name !== "cache") yield* files(full);
    else if (entry.isFile()) yield full;
  }
}

/** What is wrong with a prerendered page's stylesheet: nothing when it is there once, in the server's <style>. */
export function stylesheetProblems(html: string) {
  const count = html.split(stylesheetMarker).length - 1;
  const styleTag = /<style id="site-css">[\s\S]*?<\/style>/.exec(html)?.[0] ?? "";
  const problems: string[] = [];
  if (count !== 1) problems.push(`the stylesheet ${count} times (once expected)`);
  if (!styleTag.includes(stylesheetMarker)) problems.push('no stylesheet in <style id="site-css">');
  const payloadScripts = html.match(/<script>self\.__next_f\.push\([\s\S]*?<\/script>/g) ?? [];
  if (payloadScripts.some((script) => script.includes(stylesheetMarker)))
    problems.push("the stylesheet in the React Server Components payload");
  if (/<link[^>]+rel="stylesheet"/.test(html)) problems.push("a stylesheet link");
  return problems;
}

/**
 * What is wrong with a build's stylesheet, page by page: a prerendered page
 * without it once in its <style>, a payload that carries it, a stylesheet
 * Next emitted, or no page at all.
 */
export async function buildProblems(distDir: string) {
  const problems: string[] = [];
  let pages = 0;
  for await (const file of files(distDir)) {
    const relative = path.relative(distDir, file);
    if (file.endsWith(".css")) problems.push(`${relative}: Next emitted a stylesheet of its own`);
    // _global-error.html is Next's own last-resort 500 document, with its own inline style.
    if (
      relative.startsWith(`server${path.sep}app`) &&
      file.endsWith(".html") &&
      !relative.endsWith("_global-error.html")
    ) {
      pages += 1;
      problems.push(...stylesheetProblems(await readFile(file, "utf8")).map((problem) => `${relative}: ${problem}`));
    }
    if (file.endsWith(".rsc") && (await readFile(file, "utf8")).includes(stylesheetMarker))
      problems.push(`${relative}: the stylesheet in a payload file`);
  }
  if (pages === 0) problems.push(`no prerendered page in ${distDir}`);
  return { problems, pages };
}

async function finish() {
  const distDir = path.join(root, nextConfig(PHASE_PRODUCTION_BUILD).distDir ?? ".next");

  const { problems, pages } = await buildProblems(distDir);
  if (problems.length) {
    console.error(
      `site-css: the build's stylesheet is wrong (docs/decisions/0003-stylesheet.md):\n  ${problems.join("\n  ")}`,
    );
    process.exit(1);
  }
  console.log(`site-css: ${pages} prerendered pages hold the stylesheet once, in <style>`);
}

if (import.meta.filename === process.argv[1]) {
  const step = process.argv[2];
  (step === "prepare"
    ? prepare()
    : step === "finish"
      ? finish()
      : Promise.reject(new Error("usage: site-css.ts prepare|finish"))
  ).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
