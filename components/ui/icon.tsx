"use client";

import iconMarkup from "#icon-markup";
import type { IconName } from "./icon-markup";

type IconProps = { name: IconName; className?: string };

/**
 * A Lucide icon as plain SVG, drawn by the server rendering. Its shapes come
 * from `#icon-markup`, which is the whole table on the server and empty in the
 * browser: the HTML carries the shapes, the page's payload carries only this
 * component's name and props (a server component's SVG would be repeated
 * there, shape by shape), and no icon is shipped as JavaScript. Hydration
 * leaves the server's shapes in place: React does not compare or patch what
 * dangerouslySetInnerHTML wrote. So an icon is drawn only where the server
 * renders it; one that must change in the browser is drawn in both states
 * and shown by CSS (the mobile menu's button).
 *
 * How icons are drawn (no fill, a round 2px stroke in the text's colour) is
 * the `icon` class of app/globals.css, their size a `size-*` class. Always
 * decorative: the text beside them says it all.
 */
export function Icon({ name, className }: IconProps) {
  return (
    <svg
      viewBox="0 0 24 24"
      aria-hidden="true"
      className={className ? `icon ${className}` : "icon"}
      suppressHydrationWarning
      dangerouslySetInnerHTML={{ __html: iconMarkup[name] ?? "" }}
    />
  );
}
