import { Icon } from "@/components/ui/icon";
import { SiteFooter } from "@/components/site/site-footer";
import type { Message } from "@/lib/forms/define";

type ResultPageProps = {
  message: Message;
  /** A line under the outcome, the same for every visitor of the page. */
  note?: string;
  back: { href: string; label: string };
};

/**
 * Where a form posted without JavaScript lands once its sign-up is kept
 * (post/redirect/get): the outcome in the toast's words, and the way back.
 * A static page, so reloading it posts nothing.
 */
export function ResultPage({ message, note, back }: ResultPageProps) {
  return (
    <>
      <main id="main" className="flex min-h-[calc(100vh-7rem)] items-start justify-center px-4 py-12 sm:py-20">
        <div className="w-full max-w-lg rounded-3xl border border-stone-200 bg-white p-6 shadow-lg sm:p-10">
          <div
            id="result"
            role="status"
            className="flex gap-3 rounded-xl border border-emerald-300 bg-emerald-50 p-4 text-emerald-900"
          >
            <Icon name="circleCheck" className="mt-1 size-5 shrink-0" />
            <div>
              {/* The space keeps the words apart for a reader of the text alone, as the inline outcome does. */}
              <h1 className="text-xl font-bold tracking-tight">{message.title}</h1>{" "}
              <p className="mt-2 text-sm">{message.text}</p>
            </div>
          </div>
          {note ? <p className="mt-6 text-sm text-stone-700">{note}</p> : null}
          <a
            href={back.href}
            className="mt-8 inline-flex items-center gap-1.5 text-sm font-semibold text-stone-600 hover:text-ink"
          >
            <Icon name="arrowLeft" className="size-4" />
            {back.label}
          </a>
        </div>
      </main>
      <SiteFooter />
    </>
  );
}
