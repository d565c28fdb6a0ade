"use client";

import { Icon } from "@/components/ui/icon";
import { useRef, useSyncExternalStore } from "react";

type MobileMenuProps = {
  links: readonly { href: string; label: string }[];
};

const menuId = "mobile-menu";

// The popover is the state: React reads whether it is open, as the visitor left
// it, also when it was opened before the page hydrated. `toggle` does not bubble.
function onToggle(changed: () => void) {
  document.addEventListener("toggle", changed, true);
  return () => document.removeEventListener("toggle", changed, true);
}
const isOpen = () => !!document.getElementById(menuId)?.matches(":popover-open");
// Unknown in the server render and while hydrating: no aria-expanded until React runs.
const unknown = () => undefined;

/**
 * The small-screen menu is a native popover: its button opens and closes it and
 * Escape dismisses it before any script runs. Once hydrated, the button also
 * carries aria-expanded (read from the popover itself) and a link click closes the menu.
 */
export function MobileMenu({ links }: MobileMenuProps) {
  const open = useSyncExternalStore(onToggle, isOpen, unknown);
  const menuRef = useRef<HTMLDivElement>(null);

  return (
    <div className="md:hidden">
      <button
        type="button"
        popoverTarget={menuId}
        aria-controls={menuId}
        aria-expanded={open}
        aria-label="Menu"
        className="inline-flex size-10 items-center justify-center rounded-full text-ink hover:bg-stone-200/60"
      >
        {/* Both drawn; the stylesheet shows the one for the popover's state, with or without JavaScript. */}
        <Icon name="menu" className="menu-closed size-6" />
        <Icon name="x" className="menu-open size-6" />
      </button>
      <div
        id={menuId}
        ref={menuRef}
        popover="auto"
        className="inset-x-0 top-16 m-0 w-full border-b border-stone-200 bg-cream p-0 shadow-lg"
      >
        <nav aria-label="Mobile">
          <ul className="flex flex-col px-4 py-2">
            {links.map((link) => (
              <li key={link.href}>
                <a href={link.href} onClick={() => menuRef.current?.hidePopover()} className="menu-link">
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </div>
    </div>
  );
}
