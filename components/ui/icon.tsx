import type { IconNode } from "lucide";
import { createElement, type SVGProps } from "react";

type IconProps = { icon: IconNode } & Omit<SVGProps<SVGSVGElement>, "children">;

/**
 * A Lucide icon drawn as plain SVG. lucide-react's icons are client components,
 * so each one would be serialized into the page's RSC payload and hydrated;
 * these are markup only. Always decorative: the text beside them says it all.
 */
export function Icon({ icon, ...props }: IconProps) {
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      width={24}
      height={24}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...props}
    >
      {icon.map(([tag, attributes], index) => createElement(tag, { key: index, ...attributes }))}
    </svg>
  );
}
