import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defaultStudioCredit } from "@/lib/studio";
import { SiteFooter } from "./site-footer";

describe("SiteFooter", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
  });

  it("credits the studio STUDIO_CREDIT names, or the default one", () => {
    vi.stubEnv("STUDIO_CREDIT", "");
    expect(renderToStaticMarkup(<SiteFooter />)).toContain(`Sous. ${defaultStudioCredit}</p>`);
    vi.stubEnv("STUDIO_CREDIT", "  Built by Mise & Co.  ");
    const credited = renderToStaticMarkup(<SiteFooter />);
    expect(credited).toContain("Sous. Built by Mise &amp; Co.</p>");
    expect(credited).not.toContain(defaultStudioCredit);
  });

  it("renders the year of the moment the page is (re)rendered", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(2031, 0, 1, 0, 0, 1));
    expect(renderToStaticMarkup(<SiteFooter />)).toContain("© 2031 ");

    vi.setSystemTime(new Date(2030, 11, 31, 23, 59, 59));
    expect(renderToStaticMarkup(<SiteFooter />)).toContain("© 2030 ");
  });
});
