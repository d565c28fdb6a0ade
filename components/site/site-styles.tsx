"use client";

import { useServerInsertedHTML } from "next/navigation";
import { useRef } from "react";
import css from "#site-css";

// `#site-css` is the stylesheet's text on the server and "" in the browser's bundle: what useServerInsertedHTML
// returns goes into the HTML, never the RSC payload, and React leaves a <style> in <head> alone for later pages.
// Under `next dev` the text is "" and Next's pipeline brings the styles.
export function SiteStyles() {
  const written = useRef(false);
  useServerInsertedHTML(() => {
    if (written.current || !css) return null;
    written.current = true;
    return <style id="site-css" dangerouslySetInnerHTML={{ __html: css }} />;
  });
  return null;
}
