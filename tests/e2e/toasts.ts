import type { Page } from "@playwright/test";

/** sonner's toasts, each a list item in the notifications region. */
export function toasts(page: Page) {
  return page.locator("[data-sonner-toast]");
}
