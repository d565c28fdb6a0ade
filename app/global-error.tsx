"use client";

import { errorContent } from "@/components/errors/error-content";
import { ErrorFallback } from "@/components/errors/error-fallback";
import "./globals.css";

// Replaces the root layout when it fails, so it brings its own document.
export default function GlobalError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <html lang="en">
      <body className="font-sans">
        <title>{errorContent.unexpectedTitle}</title>
        <ErrorFallback error={error} onRetry={retry} />
      </body>
    </html>
  );
}
