"use client";

import { useHydrated } from "@/components/ui/use-hydrated";

/**
 * Pages are prerendered when the site is built, so the server's year is the build's. After hydration the
 * visitor's own clock decides; without JavaScript the build's year stands until the next deploy.
 */
export function CurrentYear({ serverYear }: { serverYear: number }) {
  return useHydrated() ? new Date().getFullYear() : serverYear;
}
