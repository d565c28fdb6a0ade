import { legalLinks } from "@/components/site/legal-links";

/** The line beneath the consent text that carriers' reviewers look for: the program's terms and the privacy policy. */
export function ConsentLinks() {
  return (
    <p className="mt-2 text-sm text-stone-700">
      See our{" "}
      <a
        href={legalLinks.terms.href}
        className="font-semibold text-brand-700 underline underline-offset-2 hover:text-ink"
      >
        {legalLinks.terms.label}
      </a>{" "}
      and{" "}
      <a
        href={legalLinks.privacy.href}
        className="font-semibold text-brand-700 underline underline-offset-2 hover:text-ink"
      >
        {legalLinks.privacy.label}
      </a>
      .
    </p>
  );
}
