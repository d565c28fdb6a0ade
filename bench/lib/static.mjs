import { readFile } from "node:fs/promises";
import { paths } from "./config.mjs";

/**
 * @typedef {object} StaticCheck
 * @property {string} path
 * @property {boolean} prerendered   listed in .next/prerender-manifest.json
 * @property {string} buildMark      the route's symbol in `next build`'s table (○ static, ƒ dynamic)
 * @property {number | false | undefined} revalidateSeconds
 */

/**
 * Reads from the build, rather than from response headers, whether a page is
 * prerendered: a header can say HIT for a page that was rendered on demand once.
 *
 * @param {string[]} pagePaths
 * @param {string} buildLog what `next build` printed
 * @returns {Promise<StaticCheck[]>}
 */
export async function checkStatic(pagePaths, buildLog) {
  const manifest = JSON.parse(await readFile(`${paths.root}.next/prerender-manifest.json`, "utf8"));
  const marks = new Map(
    [...buildLog.matchAll(/^[┌├└│]\s+(\S)\s+(\/\S*)/gmu)].map(([, mark, route]) => [route, mark]),
  );
  return pagePaths.map((path) => {
    const route = manifest.routes?.[path];
    return {
      path,
      prerendered: Boolean(route) && !(path in (manifest.dynamicRoutes ?? {})),
      buildMark: marks.get(path) ?? "?",
      revalidateSeconds: route?.initialRevalidateSeconds,
    };
  });
}
