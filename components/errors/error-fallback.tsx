import { buttonClass } from "@/components/ui/button-styles";
import { errorContent } from "./error-content";

type ErrorFallbackProps = {
  error: unknown;
  onRetry: () => void;
};

/**
 * Errors thrown on the server reach the browser without their message (so no
 * detail leaks) but with a digest that also appears in the server log; we show
 * that digest as the message. Errors thrown in the browser keep their message.
 */
export function errorMessage(error: unknown) {
  if (error instanceof Error) {
    const digest = "digest" in error && typeof error.digest === "string" ? error.digest : undefined;
    return digest ? errorContent.serverMessage(digest) : error.message;
  }
  return String(error);
}

export function ErrorFallback({ error, onRetry }: ErrorFallbackProps) {
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4">
      <div className="max-w-xl text-center">
        <h1 className="text-2xl font-bold">{errorContent.unexpectedTitle}</h1>
        <p className="mt-4 text-stone-700">{errorMessage(error)}</p>
        <div className="mt-8 flex justify-center gap-3">
          <button type="button" onClick={onRetry} className={buttonClass("primary")}>
            {errorContent.retry}
          </button>
          {/* A full page load on purpose: the client state may be what broke. */}
          <a href="/" className={buttonClass("secondary")}>
            {errorContent.home}
          </a>
        </div>
      </div>
    </main>
  );
}
