"use client";

import { useHydrated } from "@/components/ui/use-hydrated";

/**
 * Pages are prerendered and revalidated hourly, so the server's year can be a
 * build or an hour old on New Year's Day. After hydration the visitor's own
 * clock decides; without JavaScript the revalidated server year stands.
 */
export function CurrentYear({ serverYear }: { serverYear: number }) {
  return useHydrated() ? new Date().getFullYear() : serverYear;
}
