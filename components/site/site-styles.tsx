"use client";

import { useServerInsertedHTML } from "next/navigation";
import { useRef } from "react";
import css from "#site-css";

/**
 * The site's stylesheet, written into the document's <head> by the server
 * rendering and nowhere else: `#site-css` is its text on the server and ""
 * in the browser's bundle (package.json "imports"), and what
 * useServerInsertedHTML returns goes into the HTML, not into the React
 * Server Components payload. The <style> stays for every later page: one
 * stylesheet serves them all, and React leaves a <style> in <head> alone.
 * Under `next dev` the text is "" and Next's pipeline brings the styles.
 */
export function SiteStyles() {
  const written = useRef(false);
  useServerInsertedHTML(() => {
    if (written.current || !css) return null;
    written.current = true;
    return <style id="site-css" dangerouslySetInnerHTML={{ __html: css }} />;
  });
  return null;
}
