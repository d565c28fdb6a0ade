import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addCompileHints, COMPILE_HINT, startupChunks } from "./startup-chunks";

// A build directory shaped like Next 16's: the framework's chunks in
// build-manifest.json, each route's entry chunks in a client reference
// manifest (a script assigning a global), and chunks nobody lists at start-up.
let distDir: string;

const chunk = (name: string) => `static/chunks/${name}.js`;
const code = (name: string) => `(globalThis.TURBOPACK||(globalThis.TURBOPACK=[])).push(["${name}"]);\n`;

async function write(file: string, content: string) {
  await mkdir(path.dirname(path.join(distDir, file)), { recursive: true });
  await writeFile(path.join(distDir, file), content);
}

function clientReferenceManifest(route: string, entryJSFiles: Record<string, string[]>) {
  return (
    "globalThis.__RSC_MANIFEST = globalThis.__RSC_MANIFEST || {};\n" +
    `globalThis.__RSC_MANIFEST[${JSON.stringify(route)}] = ${JSON.stringify({ clientModules: {}, entryJSFiles })};\n`
  );
}

beforeEach(async () => {
  distDir = await mkdtemp(path.join(tmpdir(), "startup-chunks-"));
  await write(
    "build-manifest.json",
    JSON.stringify({
      polyfillFiles: [chunk("polyfills")],
      rootMainFiles: [chunk("react"), chunk("router"), "static/chunks/turbopack-runtime.js"],
    }),
  );
  await write(
    "server/app/page_client-reference-manifest.js",
    clientReferenceManifest("/page", {
      "[project]/app/layout": [chunk("layout")],
      "[project]/app/page": [chunk("layout"), chunk("home")],
    }),
  );
  await write(
    "server/app/signup/page_client-reference-manifest.js",
    clientReferenceManifest("/signup/page", { "[project]/app/signup/page": [chunk("layout"), chunk("form")] }),
  );
  await write(
    "server/app/robots.txt/route_client-reference-manifest.js",
    clientReferenceManifest("/robots.txt/route", {}),
  );
  for (const name of ["polyfills", "react", "router", "layout", "home", "form", "zod"])
    await write(chunk(name), code(name));
  await write("static/chunks/turbopack-runtime.js", code("runtime"));
});

afterEach(() => rm(distDir, { recursive: true, force: true }));

describe("startupChunks", () => {
  it("lists the framework's chunks and every route's entry chunks, once each, without the polyfills", async () => {
    expect(await startupChunks(distDir)).toEqual(
      ["form", "home", "layout", "react", "router"].map(chunk).concat("static/chunks/turbopack-runtime.js").sort(),
    );
  });

  it("leaves out chunks loaded later, which no manifest lists at start-up", async () => {
    expect(await startupChunks(distDir)).not.toContain(chunk("zod"));
  });
});

describe("addCompileHints", () => {
  it("puts the hint on the first line of every start-up chunk, before the code it had", async () => {
    const { chunks, added } = await addCompileHints(distDir);
    expect(added).toEqual(chunks);
    expect(await readFile(path.join(distDir, chunk("form")), "utf8")).toBe(COMPILE_HINT + code("form"));
    expect(COMPILE_HINT).toBe("//# allFunctionsCalledOnLoad\n");
  });

  it("leaves lazily loaded chunks and the polyfills byte for byte as they were", async () => {
    await addCompileHints(distDir);
    expect(await readFile(path.join(distDir, chunk("zod")), "utf8")).toBe(code("zod"));
    expect(await readFile(path.join(distDir, chunk("polyfills")), "utf8")).toBe(code("polyfills"));
  });

  it("changes nothing when run twice", async () => {
    await addCompileHints(distDir);
    const again = await addCompileHints(distDir);
    expect(again.added).toEqual([]);
    expect(await readFile(path.join(distDir, chunk("react")), "utf8")).toBe(COMPILE_HINT + code("react"));
  });
});
