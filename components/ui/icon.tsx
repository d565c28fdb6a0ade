import type { IconNode } from "lucide";
import { createElement, type SVGProps } from "react";

type IconProps = { icon: IconNode } & Omit<SVGProps<SVGSVGElement>, "children">;

/**
 * A Lucide icon drawn as plain SVG. lucide-react's icons are client components,
 * so each one would be serialized into the page's RSC payload and hydrated;
 * these are markup only. How they are drawn (no fill, a round 2px stroke in the
 * text's colour) is the `icon` class of app/globals.css, and their size a
 * `size-*` class, so each icon carries its shapes and no presentation
 * attributes, in the HTML and again in the payload. Always decorative: the
 * text beside them says it all.
 */
export function Icon({ icon, className, ...props }: IconProps) {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true" className={className ? `icon ${className}` : "icon"} {...props}>
      {icon.map(([tag, attributes], index) => createElement(tag, { key: index, ...attributes }))}
    </svg>
  );
}
