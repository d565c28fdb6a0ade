import { ArrowRight, type IconNode } from "lucide";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import noIcons from "@/lib/style/no-icons.js";
import { Icon } from "./icon";
import { shapesOf } from "./icon-markup";

describe("Icon", () => {
  it("draws the named Lucide icon's shapes in the server's markup, decorative, drawn by the icon class", () => {
    const html = renderToStaticMarkup(<Icon name="arrowRight" className="size-5" />);
    expect(html).toBe(`<svg viewBox="0 0 24 24" aria-hidden="true" class="icon size-5">${shapesOf(ArrowRight)}</svg>`);
    expect(html).toContain('<path d="M5 12h14"></path><path d="m12 5 7 7-7 7"></path>');
  });

  it("writes every attribute of every shape, escaped", () => {
    const node: IconNode = [
      ["circle", { cx: 12, cy: 12, r: 10 }],
      ["path", { d: 'M1 1"><script>' }],
    ];
    expect(shapesOf(node)).toBe('<circle cx="12" cy="12" r="10"></circle><path d="M1 1&quot;>&lt;script>"></path>');
  });

  it("has no shapes in the browser's bundle: #icon-markup is an empty table there", () => {
    expect(noIcons).toEqual({});
  });
});
