"use client";

import { useEffect } from "react";

/** Tells whoever opens the browser console which address led here. */
export function LogMissingPath() {
  useEffect(() => {
    console.warn("404: no page at", window.location.pathname);
  }, []);
  return null;
}
