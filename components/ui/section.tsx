import type { ReactNode } from "react";
import { SectionHeading } from "./section-heading";

type SectionProps = {
  /** The section's anchor and the words its heading opens with. */
  copy: { id: string; eyebrow: string; title: string; lead?: string };
  /** White on the cream page, to set neighbouring sections apart. */
  white?: boolean;
  children: ReactNode;
};

/** A landing section: its anchor, its heading, and what follows, in the page's column. */
export function Section({ copy, white = false, children }: SectionProps) {
  return (
    <section id={copy.id} aria-labelledby={`${copy.id}-title`} className={`${white ? "bg-white " : ""}py-20 sm:py-28`}>
      <div className="mx-auto max-w-6xl px-4 sm:px-6">
        <SectionHeading id={copy.id} eyebrow={copy.eyebrow} title={copy.title} lead={copy.lead} />
        {children}
      </div>
    </section>
  );
}
