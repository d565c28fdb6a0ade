import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SiteFooter } from "./site-footer";

describe("SiteFooter", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("renders the year of the moment the page is (re)rendered", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(2031, 0, 1, 0, 0, 1));
    expect(renderToStaticMarkup(<SiteFooter />)).toContain("© 2031 ");

    vi.setSystemTime(new Date(2030, 11, 31, 23, 59, 59));
    expect(renderToStaticMarkup(<SiteFooter />)).toContain("© 2030 ");
  });
});
