import { Icon } from "@/components/ui/icon";
import type { Metadata } from "next";
import { socialImage } from "@/components/site/site-content";
import { SiteFooter } from "@/components/site/site-footer";
import { signupPage } from "@/components/signup/signup-content";
import { FormMount } from "@/components/forms/form-mount";
import { WaitlistForm } from "@/components/forms/waitlist-form";
import { waitlist } from "@/lib/forms/waitlist";
import { startAgainNote } from "@/lib/sms/program";
import { serveForm } from "@/server/forms/serve-form";

export const metadata: Metadata = {
  title: signupPage.metaTitle,
  description: signupPage.metaDescription,
  alternates: { canonical: "/signup" },
  // A page's openGraph replaces the layout's whole, so the cards are named again.
  openGraph: {
    title: signupPage.metaTitle,
    description: signupPage.metaDescription,
    url: "/signup",
    images: [{ url: "/opengraph-image", ...socialImage }],
  },
  twitter: {
    card: "summary_large_image",
    title: signupPage.metaTitle,
    description: signupPage.metaDescription,
    images: [{ url: "/twitter-image", ...socialImage }],
  },
};

export default function SignupPage() {
  return (
    <>
      {/* The card hangs from the top, not centred: while a slow link delivers the
          HTML in pieces, a centred card that is still growing would move up. */}
      <main id="main" className="flex min-h-[calc(100vh-7rem)] items-start justify-center px-4 py-12 sm:py-20">
        <div className="w-full max-w-lg rounded-3xl border border-stone-200 bg-white p-6 shadow-lg sm:p-10">
          <a
            href={signupPage.back.href}
            className="inline-flex items-center gap-1.5 text-sm font-semibold text-stone-600 hover:text-ink"
          >
            <Icon name="arrowLeft" className="size-4" />
            {signupPage.back.label}
          </a>
          <h1 className="mt-6 text-3xl font-bold tracking-tight">{signupPage.title}</h1>
          <p className="mt-3 text-stone-600">{signupPage.description}</p>
          <div className="mt-8">
            <FormMount form={WaitlistForm} served={serveForm(waitlist)} />
          </div>
          <p className="mt-6 text-sm text-stone-700">{startAgainNote}</p>
        </div>
      </main>
      <SiteFooter />
    </>
  );
}
