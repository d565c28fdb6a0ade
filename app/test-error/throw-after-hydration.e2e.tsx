"use client";

import { useHydrated } from "@/components/ui/use-hydrated";

/** Test fixture: renders nothing on the server, then fails in the browser. */
export function ThrowAfterHydration({ message }: { message: string }) {
  if (useHydrated()) throw new Error(message);
  return null;
}
