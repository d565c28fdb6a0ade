import type { Metadata } from "next";
import type { ReactNode } from "react";
import { socialImage } from "@/components/site/site-content";
import { Icon } from "@/components/ui/icon";
import { SiteFooter } from "@/components/site/site-footer";
import type { BusinessIdentity } from "@/lib/business-identity";
import { opener, type LegalBlock, type LegalDocument } from "./legal-document";
import { legalLinks } from "@/components/site/legal-links";

const linkClass = "font-semibold text-brand-700 underline underline-offset-2 hover:text-ink";

/** The text with each phrase that names a place (the support email, the other page, the sign-up) made a link. */
function linked(text: string, links: ReadonlyMap<string, string>): ReactNode[] {
  const phrases = [...links.keys()].map((phrase) => phrase.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return text.split(new RegExp(`(${phrases.join("|")})`)).map((part, index) => {
    const href = links.get(part);
    return href ? (
      <a key={index} href={href} className={linkClass}>
        {part}
      </a>
    ) : (
      part
    );
  });
}

function Block({ block, links }: { block: LegalBlock; links: ReadonlyMap<string, string> }) {
  if (typeof block === "string") return <p>{linked(block, links)}</p>;
  return (
    <ul className="list-disc space-y-2 pl-5">
      {block.list.map((item) => (
        <li key={item}>{linked(item, links)}</li>
      ))}
    </ul>
  );
}

/** A legal page's title, description, canonical URL and social cards (a page's openGraph replaces the layout's whole). */
export function legalMetadata(
  { metaTitle: title, metaDescription: description }: LegalDocument,
  url: string,
): Metadata {
  return {
    title,
    description,
    alternates: { canonical: url },
    openGraph: { title, description, url, images: [{ url: "/opengraph-image", ...socialImage }] },
    twitter: { card: "summary_large_image", title, description, images: [{ url: "/twitter-image", ...socialImage }] },
  };
}

/** A legal page in the site's design: a card with a way back, the effective date, one heading per section, the footer. */
export function LegalPage({ document, identity }: { document: LegalDocument; identity: BusinessIdentity }) {
  const links = new Map([
    [identity.supportEmail, `mailto:${identity.supportEmail}`],
    ["Privacy Policy", legalLinks.privacy.href],
    ["SMS Terms", legalLinks.terms.href],
    ["sign-up page", "/signup"],
  ]);
  return (
    <>
      <main id="main" className="flex justify-center px-4 py-12 sm:py-20">
        <article className="w-full max-w-3xl rounded-3xl border border-stone-200 bg-white p-6 shadow-lg sm:p-12">
          <a href="/" className="inline-flex items-center gap-1.5 text-sm font-semibold text-stone-600 hover:text-ink">
            <Icon name="arrowLeft" className="size-4" />
            Back
          </a>
          <h1 className="mt-6 text-3xl font-bold tracking-tight sm:text-4xl">{document.title}</h1>
          <p className="mt-2 text-sm font-medium text-stone-600">{opener(identity)}</p>
          <p className="mt-6 text-lg text-stone-700">{linked(document.intro, links)}</p>
          {document.sections.map((section) => (
            <section key={section.id} aria-labelledby={section.id} className="mt-10">
              <h2 id={section.id} className="text-xl font-bold tracking-tight">
                {section.heading}
              </h2>
              <div className="mt-3 space-y-3 leading-relaxed text-stone-700">
                {section.blocks.map((block, index) => (
                  <Block key={index} block={block} links={links} />
                ))}
              </div>
            </section>
          ))}
        </article>
      </main>
      <SiteFooter />
    </>
  );
}
