"use client";

import { ErrorFallback } from "@/components/errors/error-fallback";

export default function RouteError({ error, retry }: { error: unknown; retry: () => void }) {
  return <ErrorFallback error={error} onRetry={retry} />;
}
