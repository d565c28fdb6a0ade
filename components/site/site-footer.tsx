import { legalLinks } from "@/components/site/legal-links";
import { Icon } from "@/components/ui/icon";
import { CurrentYear } from "./current-year";
import { studioCredit } from "@/server/site-settings";
import { brand } from "./site-content";

export function SiteFooter() {
  return (
    <footer className="border-t border-stone-200 bg-cream">
      <div className="mx-auto flex max-w-6xl flex-col gap-4 px-4 py-10 text-sm text-stone-600 sm:flex-row sm:items-center sm:justify-between sm:px-6">
        <p className="flex items-center gap-2 font-semibold text-ink">
          <Icon name="chefHat" className="size-5 text-brand-600" />
          {brand.name}
          <span className="font-normal text-stone-600">· {brand.tagline}</span>
        </p>
        <nav aria-label="Legal">
          <ul className="flex gap-5">
            {[legalLinks.terms, legalLinks.privacy].map((link) => (
              <li key={link.href}>
                <a
                  href={link.href}
                  className="font-medium text-stone-700 underline-offset-2 hover:text-ink hover:underline"
                >
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <p>
          © <CurrentYear serverYear={new Date().getFullYear()} /> {brand.name}. {studioCredit()}
        </p>
      </div>
    </footer>
  );
}
