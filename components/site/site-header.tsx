import { Icon } from "@/components/ui/icon";
import { buttonClass } from "@/components/ui/button-styles";
import { MobileMenu } from "./mobile-menu";
import { brand, navLinks, signUpLink } from "./site-content";

export function SiteHeader() {
  return (
    <header className="fixed inset-x-0 top-0 z-40 border-b border-stone-200 bg-cream/95 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-3 px-4 sm:px-6">
        <a href="/" className="flex items-center gap-2 text-lg font-bold tracking-tight">
          <Icon name="chefHat" className="size-6 text-brand-600" />
          {brand.name}
        </a>
        <nav aria-label="Main" className="hidden md:block">
          <ul className="flex items-center gap-8 text-sm font-medium text-stone-700">
            {navLinks.map((link) => (
              <li key={link.href}>
                <a href={link.href} className="hover:text-brand-700">
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="flex items-center gap-2">
          <a href={signUpLink.href} className={buttonClass("primary", "sm")}>
            {signUpLink.label}
          </a>
          <MobileMenu links={navLinks} />
        </div>
      </div>
    </header>
  );
}
