import Link from "next/link";
import type { ReactNode } from "react";
import type { SignedIn } from "@/server/operators/operators";
import { signOut } from "@/server/console/ceremony-actions";
import { unreached } from "@/server/console/unreached";
import { readEnv } from "@/server/env";

const sections = [
  { href: "/console", label: "Overview" },
  { href: "/console/waitlist", label: "Waitlist" },
  { href: "/console/quotes", label: "Quotes" },
  { href: "/console/sources", label: "Sources" },
  { href: "/console/deliveries", label: "Deliveries" },
  { href: "/console/invitations", label: "Invitations" },
  { href: "/console/exports", label: "Exports" },
  { href: "/console/activity", label: "Activity" },
  { href: "/console/operators", label: "Operators" },
  { href: "/console/passkeys", label: "Passkeys" },
  { href: "/console/settings", label: "Settings" },
] as const;

/** A signed-in console page: the sections, who is signed in with what role, sign-out, what keeps chefs from being reached, and the page. */
export async function ConsoleFrame({
  signed: { operator, store },
  current,
  title,
  children,
}: {
  signed: SignedIn;
  current: string;
  title: string;
  children: ReactNode;
}) {
  const warnings = await unreached(store, readEnv());
  return (
    <>
      <header className="border-b border-stone-300 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
          <p className="font-bold">Sous console</p>
          {/* One row of sections under the account, scrolled within itself on a phone. */}
          <nav aria-label="Console" className="order-last w-full">
            <ul className="flex gap-4 overflow-x-auto p-1 whitespace-nowrap">
              {sections.map((section) => (
                <li key={section.href}>
                  <Link
                    href={section.href}
                    aria-current={section.href === current ? "page" : undefined}
                    className="rounded underline-offset-4 hover:underline focus-visible:outline-2 focus-visible:outline-brand-700 aria-[current=page]:font-semibold aria-[current=page]:underline"
                  >
                    {section.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <form action={signOut} className="ml-auto flex min-w-0 items-center gap-3 text-sm">
            <span className="wrap-anywhere">
              {operator.email} ({operator.role})
            </span>
            <button
              type="submit"
              className="rounded-lg border border-stone-400 px-3 py-1 hover:bg-stone-100 focus-visible:outline-2 focus-visible:outline-brand-700"
            >
              Sign out
            </button>
          </form>
        </div>
      </header>
      <main id="main" data-console className="mx-auto max-w-6xl px-4 py-8 wrap-anywhere">
        <h1 className="text-2xl font-bold">{title}</h1>
        {warnings.length ? (
          <section
            aria-label="What needs attention"
            className="mt-4 rounded-lg border border-brand-700 bg-brand-50 p-3"
          >
            {warnings.map(({ text, settings }) => (
              <p key={text}>
                {text}
                {settings ? (
                  <>
                    {" "}
                    <Link href={`/console/settings#${settings}`} className="underline underline-offset-4">
                      What to set
                    </Link>
                  </>
                ) : null}
              </p>
            ))}
          </section>
        ) : null}
        {children}
      </main>
    </>
  );
}

const noSuch = {
  page: {
    words: "Nothing in the console has this address: its link may be cut short or out of date.",
    back: { href: "/console", label: "Back to the overview" },
  },
  chef: {
    words:
      "No sign-up has this address. Its link may be cut short, or its records were removed after the retention period.",
    back: { href: "/console/waitlist", label: "Search the waitlist" },
  },
};

/** The console's 404: what has no page, in the console's frame, with a way back. */
export function NoSuch({ signed, of }: { signed: SignedIn; of: keyof typeof noSuch }) {
  const { words, back } = noSuch[of];
  return (
    <ConsoleFrame signed={signed} current={of === "chef" ? "/console/waitlist" : ""} title={`No such ${of}`}>
      <p className="mt-4">{words}</p>
      <p className="mt-4">
        <Link href={back.href} className="underline underline-offset-4">
          {back.label}
        </Link>
      </p>
    </ConsoleFrame>
  );
}

/** A page without a session: sign-in, setup, enrolment. */
export function ConsoleCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main id="main" className="mx-auto max-w-md px-4 py-16">
      <p className="font-bold">Sous console</p>
      <h1 className="mt-4 text-2xl font-bold">{title}</h1>
      <div className="mt-6 space-y-4">{children}</div>
    </main>
  );
}

/** What a page needing JavaScript says without it. */
export function NeedsJavaScript() {
  return (
    <noscript>
      <p className="rounded-lg border border-stone-400 bg-white p-3">
        Passkeys need JavaScript: turn it on for this page. Every other console page works without it.
      </p>
    </noscript>
  );
}

/** What an action did, said once on the page it led back to: a status, or an alert for a refusal. */
export function Outcome({ alert = false, children }: { alert?: boolean; children: ReactNode }) {
  return alert ? (
    <p role="alert" className="mt-4 rounded-lg border border-red-800 bg-white p-3 font-semibold text-red-800">
      {children}
    </p>
  ) : (
    <p role="status" className="mt-4 rounded-lg border border-stone-400 bg-white p-3">
      {children}
    </p>
  );
}
