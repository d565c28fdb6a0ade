import type { Metadata } from "next";
import { errorContent } from "@/components/errors/error-content";
import { buttonClass } from "@/components/ui/button-styles";

export const metadata: Metadata = {
  title: errorContent.notFoundMetaTitle,
  robots: { index: false },
};

export default function NotFound() {
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4">
      {/* The spec's console line, with the path the visitor asked for: read in the browser (one prerendered page answers
          every unknown path), so the script is one constant text, and the CSP can allow it by its hash. */}
      <script dangerouslySetInnerHTML={{ __html: errorContent.notFoundConsoleScript }} />
      <div className="text-center">
        <p className="text-7xl font-extrabold text-brand-600">404</p>
        <h1 className="mt-4 text-2xl font-bold">{errorContent.notFoundTitle}</h1>
        <a href="/" className={`mt-8 ${buttonClass("primary")}`}>
          {errorContent.home}
        </a>
      </div>
    </main>
  );
}
