"use client";

import iconMarkup from "#icon-markup";
import type { IconName } from "./icon-markup";

type IconProps = { name: IconName; className?: string };

// The shapes come from `#icon-markup`, the whole table on the server and empty in the browser: the HTML carries them,
// the payload only the name, and hydration leaves what dangerouslySetInnerHTML wrote. An icon that must change in the
// browser is drawn in both states and shown by CSS. Always decorative: the text beside it says it all.
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
