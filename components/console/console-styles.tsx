"use client";

import { useServerInsertedHTML } from "next/navigation";
import { useRef } from "react";
import css from "#console-css";

/**
 * The console's stylesheet, written into the page by the server rendering, as the site's is
 * (components/site/site-styles.tsx): `#console-css` is its text on the server and "" in the browser. Only the console's
 * pages render it, so the public pages neither carry nor wait for it.
 */
export function ConsoleStyles() {
  const written = useRef(false);
  useServerInsertedHTML(() => {
    if (written.current || !css) return null;
    written.current = true;
    return <style id="console-css" dangerouslySetInnerHTML={{ __html: css }} />;
  });
  return null;
}
