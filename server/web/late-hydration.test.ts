import { describe, expect, it } from "vitest";
import { hydrateAfterPaint, loaderMark, paintWaitMs, startScripts, startsScriptsEarly } from "./late-hydration";

// The shape Next 16 writes: a preload and async chunk scripts in <head>, the
// bootstrap chunk after Turbopack's inline list at the end of <body>.
const chunk = (name: string) => `/_next/static/chunks/${name}.js`;
const page = [
  `<!DOCTYPE html><html><head><meta charSet="utf-8"/>`,
  `<link rel="preload" as="script" fetchPriority="low" href="${chunk("main")}"/>`,
  `<script src="${chunk("a")}" async=""></script><script src="${chunk("b")}" async=""></script>`,
  `<title>Sous</title><script src="${chunk("polyfills")}" noModule=""></script>`,
  `<script src="https://example.com/other.js" async=""></script></head>`,
  `<body><h1>Hi</h1><script>(globalThis.TURBOPACK||(globalThis.TURBOPACK=[])).push({})</script>`,
  `<script src="${chunk("main")}" async=""></script>`,
  `<script>(self.__next_f=self.__next_f||[]).push([0])</script></body></html>`,
].join("");

describe("hydrateAfterPaint", () => {
  const rewritten = hydrateAfterPaint(page);

  it("takes out every async chunk script and the script preload, and starts the same scripts, in order, from one loader", () => {
    expect(startScripts(page)).toEqual([chunk("a"), chunk("b"), chunk("main")]);
    expect(rewritten).not.toMatch(/<script src="\/_next\/static\/[^"]+" async=""/);
    expect(rewritten).not.toContain('rel="preload" as="script"');
    expect(startScripts(rewritten)).toEqual([chunk("a"), chunk("b"), chunk("main")]);
    expect([startsScriptsEarly(page), startsScriptsEarly(rewritten)]).toEqual([true, false]);
    expect(startsScriptsEarly(`<script src="${chunk("a")}" async="" nonce="n"></script>`)).toBe(true);
    expect(rewritten.match(new RegExp(`<script ${loaderMark}=""`, "g"))).toHaveLength(1);
  });

  it("puts the loader where the last script stood, after Turbopack's list and before the payload, and leaves the rest alone", () => {
    const loader = rewritten.indexOf(loaderMark);
    expect(loader).toBeGreaterThan(rewritten.indexOf("TURBOPACK"));
    expect(loader).toBeLessThan(rewritten.indexOf("__next_f"));
    expect(rewritten).toContain(`<script src="${chunk("polyfills")}" noModule=""></script>`);
    expect(rewritten).toContain(`<script src="https://example.com/other.js" async=""></script>`);
    expect(rewritten).toContain("<title>Sous</title>");
  });

  it("writes the folder the scripts share once, and each script's own path after it", () => {
    const mixed = `<script src="/_next/static/chunks/a.js" async=""></script><script src="/_next/static/media/b.js" async=""></script>`;
    const loader = hydrateAfterPaint(mixed);
    expect(loader).toContain('("/_next/static/",["chunks/a.js","media/b.js"])');
    expect(startScripts(loader)).toEqual(["/_next/static/chunks/a.js", "/_next/static/media/b.js"]);
    expect(hydrateAfterPaint(page)).toContain(`("/_next/static/chunks/",["a.js","b.js","main.js"])`);
    // Names that share more than their folder keep the rest of their name.
    const alike = `<script src="/_next/static/chunks/ab.js" async=""></script><script src="/_next/static/chunks/ac.js" async=""></script>`;
    expect(hydrateAfterPaint(alike)).toContain('("/_next/static/chunks/",["ab.js","ac.js"])');
  });

  it("is done once: a rewritten page, or a page with no chunk scripts, comes back as it is", () => {
    expect(hydrateAfterPaint(rewritten)).toBe(rewritten);
    const plain = "<html><body><p>No scripts</p></body></html>";
    expect(hydrateAfterPaint(plain)).toBe(plain);
  });
});

type Listener = (...args: unknown[]) => void;

/** Runs the loader in a stand-in window: what it listens to, and what it appends. */
function runLoader(supported: string[]) {
  const code = /<script data-after-paint="">([\s\S]*?)<\/script>/.exec(hydrateAfterPaint(page))?.[1] ?? "";
  const listeners = new Map<string, Listener>();
  const appended: { src: string; async: boolean }[] = [];
  const timers: { run: Listener; ms: number }[] = [];
  const frames: Listener[] = [];
  let observed: { callback: Listener; options: unknown; disconnected: boolean } | undefined;
  class Observer {
    static supportedEntryTypes = supported;
    constructor(callback: Listener) {
      observed = { callback, options: undefined, disconnected: false };
    }
    observe(options: unknown) {
      if (observed) observed.options = options;
    }
    disconnect() {
      if (observed) observed.disconnected = true;
    }
  }
  const window = {
    PerformanceObserver: Observer,
    addEventListener: (name: string, run: Listener) => listeners.set(name, run),
    removeEventListener: (name: string) => listeners.delete(name),
  };
  const document = {
    createElement: () => ({ src: "", async: false }),
    head: { appendChild: (element: { src: string; async: boolean }) => appended.push(element) },
  };
  const setTimeout = (run: Listener, ms = 0) => timers.push({ run, ms });
  const clearTimeout = () => timers.splice(0);
  const requestAnimationFrame = (run: Listener) => frames.push(run);
  new Function("window", "document", "setTimeout", "clearTimeout", "requestAnimationFrame", code)(
    window,
    document,
    setTimeout,
    clearTimeout,
    requestAnimationFrame,
  );
  return { listeners, appended, timers, frames, observed: () => observed };
}

describe("the loader", () => {
  it("waits for the largest contentful paint, then adds each script once, async, and stops listening", () => {
    const loader = runLoader(["largest-contentful-paint", "paint"]);
    expect(loader.appended).toEqual([]);
    expect(loader.observed()?.options).toEqual({ type: "largest-contentful-paint", buffered: true });
    expect([...loader.listeners.keys()]).toEqual(["pointerdown", "keydown", "focusin"]);
    loader.observed()?.callback();
    expect(loader.appended).toEqual([chunk("a"), chunk("b"), chunk("main")].map((src) => ({ src, async: true })));
    expect(loader.observed()?.disconnected).toBe(true);
    expect(loader.listeners.size).toBe(0);
    expect(loader.timers).toEqual([]);
    // A second paint entry, or a late press, adds nothing more.
    loader.observed()?.callback();
    expect(loader.appended).toHaveLength(3);
  });

  it("starts at once when the visitor presses, types or focuses before the paint is reported", () => {
    const loader = runLoader(["largest-contentful-paint"]);
    loader.listeners.get("keydown")?.();
    expect(loader.appended).toHaveLength(3);
  });

  it(`starts after ${paintWaitMs} ms when no paint is reported, and after the first frame where it cannot be`, () => {
    const waiting = runLoader(["largest-contentful-paint"]);
    expect(waiting.timers.map((timer) => timer.ms)).toEqual([paintWaitMs]);
    waiting.timers[0]?.run();
    expect(waiting.appended).toHaveLength(3);

    const unsupported = runLoader(["paint"]);
    expect(unsupported.observed()).toBeUndefined();
    expect(unsupported.appended).toEqual([]);
    unsupported.frames[0]?.();
    expect(unsupported.appended).toEqual([]);
    unsupported.timers.find((timer) => timer.ms === 0)?.run();
    expect(unsupported.appended).toHaveLength(3);
  });
});
