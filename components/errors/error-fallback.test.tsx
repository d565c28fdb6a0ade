import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import GlobalError from "@/app/global-error";
import { errorContent } from "./error-content";
import { errorMessage } from "./error-fallback";

describe("errorMessage", () => {
  it("shows a browser error's own message", () => {
    expect(errorMessage(new Error("Cannot read the menu"))).toBe("Cannot read the menu");
  });

  it("shows the digest of a server error instead of React's generic text", () => {
    const error = Object.assign(new Error("Minified React error #441"), { digest: "3632820259" });
    expect(errorMessage(error)).toBe(errorContent.serverMessage("3632820259"));
  });

  it("copes with thrown values that are not errors", () => {
    expect(errorMessage("plain string")).toBe("plain string");
  });
});

describe("GlobalError", () => {
  it("brings its own document with the title and the message", () => {
    const html = renderToStaticMarkup(<GlobalError error={new Error("Layout broke")} retry={() => {}} />);
    expect(html).toMatch(/^<html lang="en">/);
    expect(html).toContain(`<h1 class="text-2xl font-bold">${errorContent.unexpectedTitle}</h1>`);
    expect(html).toContain("Layout broke");
  });
});
