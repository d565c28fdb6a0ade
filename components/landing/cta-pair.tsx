import { buttonClass } from "@/components/ui/button-styles";
import { Icon } from "@/components/ui/icon";
import type { IconName } from "@/components/ui/icon-markup";

type Cta = { href: string; label: string; context?: string };
type Variant = Parameters<typeof buttonClass>[0];

/**
 * A section's two calls to action, side by side from the small breakpoint up:
 * the primary one (with an arrow where `arrow` is given) and the secondary one,
 * whose `context` completes its name for screen readers.
 */
export function CtaPair({
  primary,
  secondary,
  variants,
  arrow,
}: {
  primary: Cta;
  secondary: Cta;
  variants: [Variant, Variant];
  arrow?: IconName;
}) {
  return (
    <div className="mt-10 flex flex-col items-center justify-center gap-3 sm:flex-row">
      <a href={primary.href} className={buttonClass(variants[0])}>
        {primary.label}
        {arrow && <Icon name={arrow} className="size-5" />}
      </a>
      <a href={secondary.href} className={buttonClass(variants[1])}>
        {secondary.label}
        {secondary.context && <span className="sr-only"> {secondary.context}</span>}
      </a>
    </div>
  );
}
