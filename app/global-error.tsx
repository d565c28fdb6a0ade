"use client";

import { errorContent } from "@/components/errors/error-content";
import { ErrorFallback } from "@/components/errors/error-fallback";
import { SiteStyles } from "@/components/site/site-styles";
import "#dev-styles";

// Replaces the root layout when it fails, so it brings its own document.
export default function GlobalError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <html lang="en">
      <body className="font-sans">
        <SiteStyles />
        <title>{errorContent.unexpectedTitle}</title>
        <ErrorFallback error={error} onRetry={retry} />
      </body>
    </html>
  );
}
